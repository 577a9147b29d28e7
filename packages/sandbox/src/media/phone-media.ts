import { defineTable, type SandboxState, type StateTable } from '../state/sandbox-state'

/** A file as a phone holds it: the encrypted bytes it uploaded or downloaded, and the message's media key. */
export interface PhoneMediaCopy {
  file: Buffer
  mediaKey: Buffer
}

/** The files the accounts' phones hold, by `phone:messageId`. */
const PHONE_MEDIA = defineTable<PhoneMediaCopy>({ name: 'phone-media' })

/**
 * The media files on the accounts' phones: a phone keeps each file it sent or received, and uploads it again
 * when one of its linked devices asks (the media retry), until it deletes them.
 */
export class PhoneMedia {
  private readonly copies: StateTable<PhoneMediaCopy>

  constructor(state: SandboxState) {
    this.copies = state.open(PHONE_MEDIA)
  }

  keep(phone: string, messageId: string, copy: PhoneMediaCopy): void {
    this.copies.put(`${phone}:${messageId}`, copy)
  }

  get(phone: string, messageId: string): PhoneMediaCopy | undefined {
    return this.copies.get(`${phone}:${messageId}`)
  }

  /** The phone deletes every file it holds: it cannot upload any of them again. Answers how many. */
  forget(phone: string): number {
    const held = this.copies.entries(`${phone}:`)
    for (const [key] of held) this.copies.remove(key)
    return held.length
  }
}
