import type { Account, Addressing } from '../accounts/account'
import type { LinkedDevice } from '../accounts/linked-device'
import { shows } from '../accounts/privacy'
import { node, unixNow } from '../stanzas/binary-node'

/** What an account shows in a chat, as the apps send it. */
export type ChatState = 'composing' | 'recording' | 'paused'

/** A chat state a contact's phone saw from a linked device of another account. */
export interface SeenChatState {
  from: string
  state: ChatState
  at: number
}

const SEEN_LIMIT = 100

/**
 * Presence on the simulated network: who is online, who follows whose presence, and the typing signals
 * phones saw. Live only, as on the real network: a restart forgets it, and signals go to connected devices
 * only (never kept for a device that is away).
 */
export class PresenceRelay {
  private readonly online = new Map<string, { available: boolean; since: number }>()
  /** Per followed phone: the linked devices subscribed to its presence. */
  private readonly followers = new Map<string, Set<LinkedDevice>>()
  private readonly seen = new Map<string, SeenChatState[]>()

  /** An account (its phone, or a linked device's `<presence>`) went online or offline: followers are told. */
  setAvailable(account: Account, available: boolean): void {
    this.online.set(account.phone, { available, since: unixNow() })
    for (const device of this.followers.get(account.phone) ?? []) this.tellAvailability(device, account)
  }

  availability(phone: string): boolean | null {
    return this.online.get(phone)?.available ?? null
  }

  /** A linked device follows an account's presence; it is told the current one at once. */
  subscribe(device: LinkedDevice, account: Account): void {
    let devices = this.followers.get(account.phone)
    if (!devices) this.followers.set(account.phone, (devices = new Set()))
    devices.add(device)
    this.tellAvailability(device, account)
  }

  /**
   * A linked device of `from` showed a state in its chat with `contact`: the contact's phone sees it, and so
   * does every connected linked device of the contact, as the network relays chat states.
   */
  sawChatState(contact: Account, from: Account, state: ChatState, addressing: Addressing): void {
    const list = this.seen.get(contact.phone) ?? []
    list.push({ from: from.phone, state, at: unixNow() })
    this.seen.set(contact.phone, list.slice(-SEEN_LIMIT))
    this.relayChatState(from, contact, state, addressing)
  }

  /** The chat states a phone saw, oldest first. */
  chatStatesSeenBy(phone: string): SeenChatState[] {
    return [...(this.seen.get(phone) ?? [])]
  }

  /** A contact's phone shows a state in its chat with an account: that account's connected devices see it. */
  showChatState(contact: Account, to: Account, state: ChatState): void {
    this.relayChatState(contact, to, state, 'pn')
  }

  private relayChatState(from: Account, to: Account, state: ChatState, addressing: Addressing): void {
    const signal = node('chatstate', { from: from.jid(addressing) }, [
      state === 'recording' ? node('composing', { media: 'audio' }) : node(state, {}),
    ])
    for (const device of to.activeDevices()) sendIfConnected(device, signal)
  }

  private tellAvailability(device: LinkedDevice, account: Account): void {
    const state = this.online.get(account.phone)
    // An account that hides when it is online (online matching a hidden last seen) shows nothing.
    if (!state || !shows(account, 'online')) return
    const last = shows(account, 'last_seen') ? String(state.since) : 'deny'
    const attrs: Record<string, string> = state.available
      ? { from: account.pnJid, type: 'available' }
      : { from: account.pnJid, type: 'unavailable', last }
    sendIfConnected(device, node('presence', attrs))
  }
}

function sendIfConnected(device: LinkedDevice, stanza: ReturnType<typeof node>): void {
  if (device.connection?.isOpen) device.connection.send(stanza)
}
