import type { WaMessageKey } from '../contract/network'
import type { DeliveryStatus, LinkdeskMessage } from '../contract/message'

/** One stored message of an instance. */
export interface StoredMessage {
  direction: 'in' | 'out'
  /** Milliseconds since the epoch; retention counts from here. */
  storedAt: number
  message: LinkdeskMessage
  /** The network's encoding of the content, opaque here: what getMessage hands back for retries. */
  content?: Uint8Array
  /** The network's key of the message: with `content`, what a media download needs. */
  networkKey?: WaMessageKey
  /** Written by earlier versions; statuses are now small records of their own (MessageStore.statusOf). */
  status?: DeliveryStatus
  /** A received message this account marked read (mark_read, auto_read). */
  read?: boolean
}

/**
 * Where sent and received messages, their delivery statuses and their downloaded media are kept. Reads see
 * every write made before them, committed or not; a message id is one message per instance.
 */
export interface MessageStore {
  /** Stores an incoming (or phone-sent) message unless its id is known; true when it is new. */
  addIfNew(instanceId: string, entry: Omit<StoredMessage, 'storedAt'>): Promise<boolean>
  /** Stores a message this app sent (the same id sent again replaces it); resolves once durable. */
  addSent(instanceId: string, entry: Omit<StoredMessage, 'storedAt' | 'direction'>): Promise<void>
  get(instanceId: string, id: string): Promise<StoredMessage | undefined>
  /** The received messages of one chat, at most `limit` of the newest, oldest first. */
  receivedIn(instanceId: string, chat: string, limit: number): Promise<StoredMessage[]>
  /** Every stored message of an instance, in no particular order. */
  all(instanceId: string): Promise<StoredMessage[]>
  /** Notes that received messages were marked read. */
  markRead(instanceId: string, ids: readonly string[]): Promise<void>
  /** The encoded content of a message, for Baileys' getMessage; undefined when unknown. */
  content(instanceId: string, id: string): Promise<Uint8Array | undefined>
  /** Records a status if it moves the message forward; resolves to whether it did. */
  advanceStatus(instanceId: string, id: string, status: DeliveryStatus): Promise<boolean>
  /** The newest delivery status of a message; undefined when none came yet. */
  statusOf(instanceId: string, id: string): Promise<DeliveryStatus | undefined>
  /** The downloaded media of a message, if it was saved. */
  readMedia(instanceId: string, id: string): Promise<Buffer | undefined>
  /** Saves downloaded media, whole or not at all. */
  saveMedia(instanceId: string, id: string, data: Uint8Array): Promise<void>
  /** Removes messages and media older than the retention; resolves to how many messages went. */
  sweep(): Promise<number>
  /** Forgets everything of an instance (destroyed). */
  dropInstance(instanceId: string): Promise<void>
}

export interface MessageStoreOptions {
  /** Messages (and their media) are kept this long; at least 14 days so retries can be answered. */
  retentionMs?: number
  now?: () => number
}

export const DEFAULT_RETENTION_MS = 30 * 24 * 60 * 60_000

/** Messages are kept at least this long, so the network's retries can be answered. */
const MIN_RETENTION_MS = 14 * 24 * 60 * 60_000

/** How long a store keeps messages: the option's retention, never less than the minimum. */
export function retentionOf(options: MessageStoreOptions): number {
  return Math.max(options.retentionMs ?? DEFAULT_RETENTION_MS, MIN_RETENTION_MS)
}

/**
 * The clock that stamps stored messages: each time strictly after the previous one's, so stored order is
 * arrival order.
 */
export function storedAtClock(now: () => number): () => number {
  let last = 0
  return () => (last = Math.max(now(), last + 1))
}

/** How far statuses only move forward: a late "delivered" never undoes "read". */
export const STATUS_RANK: Record<DeliveryStatus, number> = {
  failed: 0,
  sent: 1,
  delivered: 2,
  read: 3,
  played: 4,
}

/** Of an instance's messages, the received ones of one chat, at most `limit` of the newest, oldest first. */
export function newestReceived(all: StoredMessage[], chat: string, limit: number): StoredMessage[] {
  const found = all.filter((stored) => stored.direction === 'in' && inChat(stored, chat))
  found.sort((a, b) => Number(a.message.timestamp) - Number(b.message.timestamp))
  return found.slice(-limit)
}

/** Whether a stored message belongs to a chat, named by its chat id or the other id the network gave. */
export function inChat(stored: StoredMessage, chat: string): boolean {
  const key = stored.networkKey
  return stored.message.chat === chat || key?.chat === chat || key?.chatAlt === chat
}

/** The network key a stored message was sent or received under, or one made from what is stored. */
export function networkKeyOf(stored: StoredMessage): WaMessageKey {
  const { message } = stored
  return (
    stored.networkKey ?? {
      id: message.id,
      chat: message.chat,
      chatAlt: null,
      fromMe: message.from_me,
      participant: message.is_group ? message.sender : null,
      participantAlt: null,
    }
  )
}
