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
  /**
   * An instance's chats, newest last message first, at most `limit` of them whose last message stands before
   * `before`: read from the chat index the store keeps up to date with every write, never from the messages.
   */
  chats(instanceId: string, limit: number, before?: MessagePosition): Promise<StoredChat[]>
  /** One chat of the index (by the chat id its messages carry); undefined when it has no stored message. */
  chat(instanceId: string, chat: string): Promise<StoredChat | undefined>
  /**
   * One chat's messages (by its chat id or the other id the network gave for it), newest first, at most
   * `limit` of those that stand before `before`: a range of the chat's own index.
   */
  chatPage(
    instanceId: string,
    chat: string,
    limit: number,
    before?: MessagePosition,
  ): Promise<StoredMessage[]>
  /** Who wrote to the account, by chat id in byte order, at most `limit` of those after `after`. */
  contacts(instanceId: string, limit: number, after?: string): Promise<StoredContact[]>
  /**
   * Makes a LID's chat its phone number's, once the network told they are one person's: every message whose
   * chat is `lid` moves to `phone` in one write (the sender named by both ids; still found under the LID, as
   * the network addressed it); resolves to how many moved. Chat ids in full: `…@lid`, `…@s.whatsapp.net`.
   */
  joinChat(instanceId: string, lid: string, phone: string): Promise<number>
  /**
   * Removes a chat's messages (found by its chat id or the other id the network gave for it) whose time is at
   * most `upTo` (Unix seconds), with their statuses and media, in one write; the chat leaves the index once it
   * has none. Resolves to how many went.
   */
  removeChat(instanceId: string, chat: string, upTo: number): Promise<number>
  /** Notes that received messages were marked read. */
  markRead(instanceId: string, ids: readonly string[]): Promise<void>
  /** The encoded content of a message, for Baileys' getMessage; undefined when unknown. */
  content(instanceId: string, id: string): Promise<Uint8Array | undefined>
  /**
   * Records a status if it moves the message forward; resolves to whether it did. `stored`: the message as the
   * caller has just read it, which a store may use instead of reading it again.
   */
  advanceStatus(
    instanceId: string,
    id: string,
    status: DeliveryStatus,
    stored?: StoredMessage,
  ): Promise<boolean>
  /** The newest delivery status of a message; undefined when none came yet. */
  statusOf(instanceId: string, id: string): Promise<DeliveryStatus | undefined>
  /** The newest delivery status of each of these stored messages that has one, in one read (a thread's page). */
  statusesOf(instanceId: string, messages: readonly StoredMessage[]): Promise<Map<string, DeliveryStatus>>
  /**
   * The chats with a stored message whose text or caption holds `text` (case-insensitive), each once, at most
   * `limit` of them: a scan of the instance's messages, not an index (a person's search, not a script's loop).
   */
  searchChats(instanceId: string, text: string, limit: number): Promise<string[]>
  /** The downloaded media of a message, if it was saved. */
  readMedia(instanceId: string, id: string): Promise<Buffer | undefined>
  /** Saves downloaded media, whole or not at all. */
  saveMedia(instanceId: string, id: string, data: Uint8Array): Promise<void>
  /** Removes messages and media older than the retention; resolves to how many messages went. */
  sweep(): Promise<number>
  /** Forgets everything of an instance (destroyed). */
  dropInstance(instanceId: string): Promise<void>
}

/** Where a message stands in its chats: its time (Unix seconds), then when it was stored, then its id. */
export type MessagePosition = [timestamp: number, storedAt: number, id: string]

/** A chat as the store's chat index keeps it. */
export interface StoredChat {
  chat: string
  /** The chat's newest message (by position). */
  last: StoredMessage
  /** Received messages not marked read. */
  unread: number
  messages: number
}

/** Someone who wrote to the account, as the store's contact index keeps them. */
export interface StoredContact {
  chat: string
  phone: string | null
  lid: string | null
  /** The name they gave themselves, from their newest message that carried it. */
  push_name: string | null
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

/** Where a stored message stands in its chats. */
export function positionOf(stored: StoredMessage): MessagePosition {
  return [Number(stored.message.timestamp) || 0, stored.storedAt, stored.message.id]
}

/** Orders positions oldest first (ids by code unit, as both stores' indexes order them). */
export function comparePositions(a: MessagePosition, b: MessagePosition): number {
  return a[0] - b[0] || a[1] - b[1] || (a[2] < b[2] ? -1 : a[2] > b[2] ? 1 : 0)
}

/** Every chat id a message is found under: its chat, and the other ids the network gave for it. */
export function chatIdsOf(stored: StoredMessage): string[] {
  const key = stored.networkKey
  return [...new Set([stored.message.chat, key?.chat, key?.chatAlt])].filter(
    (chat): chat is string => typeof chat === 'string' && chat !== '',
  )
}

/**
 * Of a chat's messages, the received ones, at most `limit` of the newest, oldest first: read from the chat's
 * index a page at a time, newest first.
 */
export async function newestReceived(
  store: Pick<MessageStore, 'chatPage'>,
  instanceId: string,
  chat: string,
  limit: number,
): Promise<StoredMessage[]> {
  const found: StoredMessage[] = []
  let before: MessagePosition | undefined
  for (;;) {
    const page = await store.chatPage(instanceId, chat, RECEIVED_PAGE, before)
    for (const stored of page) if (stored.direction === 'in' && found.length < limit) found.push(stored)
    const last = page.at(-1)
    if (found.length >= limit || page.length < RECEIVED_PAGE || !last) return found.reverse()
    before = positionOf(last)
  }
}

const RECEIVED_PAGE = 200

/** A message of a LID's chat as it stands once moved to the phone number's chat (MessageStore.joinChat). */
export function joinedMessage(stored: StoredMessage, lid: string, phone: string): StoredMessage {
  const { message } = stored
  const theirs = !message.from_me && (message.sender === lid || message.sender_lid === lid)
  return {
    ...stored,
    message: {
      ...message,
      chat: phone,
      ...(theirs && {
        sender: phone,
        sender_phone: phone.slice(0, phone.indexOf('@')),
        sender_lid: lid,
      }),
    },
  }
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

/** Whether a message's text or caption holds `needle` (already lower case). */
export function messageHolds(message: LinkdeskMessage, needle: string): boolean {
  return [message.text, message.caption].some((words) => words?.toLowerCase().includes(needle) === true)
}
