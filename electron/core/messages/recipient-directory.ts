import { AppError } from '../errors'
import type { Recipient } from './recipient'

/** Asks the network which of these phone numbers have an account: phone digits → the chat id to send to. */
export type NumberLookup = (phones: string[]) => Promise<Map<string, string>>

export interface RecipientDirectoryOptions {
  now?: () => number
  /** How long a number found on the network is trusted. */
  foundTtlMs?: number
  /** How long a number not found stays refused before it is asked again (it may register meanwhile). */
  missingTtlMs?: number
  /** Entries kept per instance; the oldest go first. */
  maxEntries?: number
}

interface Entry {
  jid: string | null
  expiresAt: number
}

/**
 * The chat id to send to for each recipient, checking phone numbers on the network first (a send to a
 * number without an account would "succeed" and go nowhere) and caching the answers per instance.
 */
export class RecipientDirectory {
  private readonly entries = new Map<string, Map<string, Entry>>()
  private readonly pending = new Map<string, Promise<string | null>>()
  private readonly now: () => number
  private readonly foundTtlMs: number
  private readonly missingTtlMs: number
  private readonly maxEntries: number

  constructor(options: RecipientDirectoryOptions = {}) {
    this.now = options.now ?? Date.now
    this.foundTtlMs = options.foundTtlMs ?? 24 * 60 * 60_000
    this.missingTtlMs = options.missingTtlMs ?? 5 * 60_000
    this.maxEntries = options.maxEntries ?? 5000
  }

  /** The chat id for this recipient; recipient_not_found when a phone number has no account. */
  async resolve(instanceId: string, recipient: Recipient, lookup: NumberLookup): Promise<string> {
    if (recipient.kind !== 'phone') return recipient.jid
    const jid = await this.lookupPhone(instanceId, recipient.phone, lookup)
    if (!jid) {
      throw new AppError('recipient_not_found', `The number ${recipient.phone} is not on the network.`, {
        details: { parameter: 'number' },
      })
    }
    return jid
  }

  /** Drops what is known for an instance (it was relinked to another account or destroyed). */
  forget(instanceId: string): void {
    this.entries.delete(instanceId)
  }

  private async lookupPhone(instanceId: string, phone: string, lookup: NumberLookup): Promise<string | null> {
    const cached = this.entries.get(instanceId)?.get(phone)
    if (cached && cached.expiresAt > this.now()) return cached.jid
    const pendingKey = `${instanceId}\u0000${phone}`
    let request = this.pending.get(pendingKey)
    if (!request) {
      request = lookup([phone])
        .then((found) => {
          const jid = found.get(phone) ?? null
          this.remember(instanceId, phone, jid)
          return jid
        })
        .finally(() => this.pending.delete(pendingKey))
      this.pending.set(pendingKey, request)
    }
    return request
  }

  private remember(instanceId: string, phone: string, jid: string | null): void {
    let known = this.entries.get(instanceId)
    if (!known) {
      known = new Map()
      this.entries.set(instanceId, known)
    }
    known.delete(phone)
    known.set(phone, { jid, expiresAt: this.now() + (jid ? this.foundTtlMs : this.missingTtlMs) })
    while (known.size > this.maxEntries) {
      const oldest = known.keys().next().value
      if (oldest === undefined) break
      known.delete(oldest)
    }
  }
}
