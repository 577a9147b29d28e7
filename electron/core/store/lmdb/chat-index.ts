import type { Database, RootDatabase } from './database'
import { Overlay } from './overlay'
import {
  chatIdsOf,
  comparePositions,
  type MessagePosition,
  positionOf,
  type StoredChat,
  type StoredContact,
  type StoredMessage,
} from '../message-store'

/** [instance, chat id, timestamp, storedAt, message id]: a message under each chat id it is found by. */
type PlaceKey = [string, string, number, number, string]
/** [instance, timestamp, storedAt, message id] of a chat's last message: chats newest first. */
type OrderKey = [string, number, number, string]
type ChatKey = [string, string]

interface ChatRecord {
  last: MessagePosition
  unread: number
  messages: number
}

interface ContactRecord {
  phone: string | null
  lid: string | null
  push_name: string | null
  /** The newest message's timestamp. */
  at: number
  messages: number
}

/** Set once the index holds every stored message (built on the first open of an older data folder). */
const BUILT: ChatKey = ['', 'chat-index-v1']

/**
 * The chats, chat pages and contacts of the embedded message store, kept at write time: each message under
 * each of its chat ids in time order, each chat's counts and last message (ordered newest first), each
 * sender's newest details. Reads are range reads of these, never of the messages.
 */
export class LmdbChatIndex {
  private readonly places: Overlay<PlaceKey, true>
  private readonly order: Overlay<OrderKey, string>
  private readonly chats: Overlay<ChatKey, ChatRecord>
  private readonly contacts: Overlay<ChatKey, ContactRecord>

  constructor(
    root: RootDatabase,
    private readonly message: (instanceId: string, id: string) => StoredMessage | undefined,
    failed: (error: unknown) => void,
  ) {
    const open = <K extends Array<string | number>, V>(name: string) =>
      new Overlay<K, V>(root.openDB<V, K>({ name, encoding: 'msgpack' }) as Database<V, K>, failed)
    this.places = open('chat-places')
    this.order = open('chat-order')
    this.chats = open('chats')
    this.contacts = open('contacts')
  }

  /**
   * Builds the index from the stored messages once, when the data folder was written without it: in one
   * transaction, before the store takes any write, so an interrupted build starts again on the next open.
   */
  buildOnce(
    root: RootDatabase,
    messages: () => Iterable<{ instanceId: string; stored: StoredMessage }>,
  ): void {
    if (this.chats.get(BUILT)) return
    root.transactionSync(() => {
      for (const { instanceId, stored } of messages()) this.change(instanceId, undefined, stored)
      void this.chats.put(BUILT, { last: [0, 0, ''], unread: 0, messages: 0 })
    })
  }

  /** Moves the index from a message as it was (undefined: new) to as it is (undefined: removed). */
  change(instanceId: string, was: StoredMessage | undefined, now: StoredMessage | undefined): void {
    const placesOf = (stored: StoredMessage | undefined) =>
      new Map(
        (stored ? chatIdsOf(stored) : []).map((chat) => {
          const key: PlaceKey = [instanceId, chat, ...positionOf(stored as StoredMessage)]
          return [key.join('\u0000'), key]
        }),
      )
    const before = placesOf(was)
    const after = placesOf(now)
    for (const [name, key] of before) if (!after.has(name)) void this.places.remove(key)
    for (const [name, key] of after) if (!before.has(name)) void this.places.put(key, true)
    if (was) this.count(instanceId, was, -1)
    if (now) this.count(instanceId, now, 1)
    if (was && !was.message.from_me) this.countContact(instanceId, was, -1)
    if (now && !now.message.from_me) this.countContact(instanceId, now, 1)
  }

  async chatsPage(instanceId: string, limit: number, before?: MessagePosition): Promise<StoredChat[]> {
    const from: OrderKey | undefined = before && [instanceId, ...before]
    return this.order
      .range([instanceId] as unknown as OrderKey, { reverse: true, limit, ...(from && { from }) })
      .flatMap(({ value }) => this.chatOf(instanceId, value) ?? [])
  }

  chatOf(instanceId: string, chat: string): StoredChat | undefined {
    const record = this.chats.get([instanceId, chat])
    const last = record && this.message(instanceId, record.last[2])
    return record && last && { chat, last, unread: record.unread, messages: record.messages }
  }

  page(instanceId: string, chat: string, limit: number, before?: MessagePosition): StoredMessage[] {
    const from: PlaceKey | undefined = before && [instanceId, chat, ...before]
    return this.places
      .range([instanceId, chat] as unknown as PlaceKey, { reverse: true, limit, ...(from && { from }) })
      .flatMap(({ key }) => this.message(instanceId, key[4]) ?? [])
  }

  contactsPage(instanceId: string, limit: number, after?: string): StoredContact[] {
    const from: ChatKey | undefined = after === undefined ? undefined : [instanceId, after]
    return this.contacts
      .range([instanceId] as unknown as ChatKey, { limit, ...(from && { from }) })
      .map(({ key, value }) => ({
        chat: key[1],
        phone: value.phone,
        lid: value.lid,
        push_name: value.push_name,
      }))
  }

  /** Forgets an instance's index (its messages are being removed); the removals join the caller's batch. */
  drop(instanceId: string): void {
    for (const overlay of [this.places, this.order, this.chats, this.contacts])
      overlay.removeAll([instanceId])
  }

  /** Counts a message into (1) or out of (-1) its chat, keeping the chat's last message and its order. */
  private count(instanceId: string, stored: StoredMessage, sign: 1 | -1): void {
    const { chat } = stored.message
    const record = this.chats.get([instanceId, chat])
    const position = positionOf(stored)
    const unread = stored.direction === 'in' && !stored.read ? sign : 0
    const next: ChatRecord = record
      ? { ...record, unread: record.unread + unread, messages: record.messages + sign }
      : { last: position, unread, messages: sign }
    if (sign === 1 && comparePositions(position, next.last) > 0) next.last = position
    if (sign === -1 && comparePositions(position, next.last) === 0)
      next.last = this.newestOwn(instanceId, chat)
    if (record && comparePositions(record.last, next.last) !== 0)
      void this.order.remove([instanceId, ...record.last])
    if (next.messages <= 0) {
      void this.chats.remove([instanceId, chat])
      if (record) void this.order.remove([instanceId, ...record.last])
      return
    }
    void this.chats.put([instanceId, chat], next)
    void this.order.put([instanceId, ...next.last], chat)
  }

  /** The newest indexed message whose own chat is `chat` (not one found there by another id). */
  private newestOwn(instanceId: string, chat: string): MessagePosition {
    let before: MessagePosition | undefined
    for (;;) {
      const page = this.page(instanceId, chat, 50, before)
      const own = page.find((stored) => stored.message.chat === chat)
      if (own) return positionOf(own)
      const last = page.at(-1)
      if (!last || page.length < 50) return [0, 0, '']
      before = positionOf(last)
    }
  }

  private countContact(instanceId: string, stored: StoredMessage, sign: 1 | -1): void {
    const { message } = stored
    const key: ChatKey = [instanceId, message.sender]
    const known = this.contacts.get(key)
    const messages = (known?.messages ?? 0) + sign
    if (messages <= 0) {
      void this.contacts.remove(key)
      return
    }
    if (sign === -1 && known) {
      void this.contacts.put(key, { ...known, messages })
      return
    }
    const at = Number(message.timestamp) || 0
    const newer = !known || at >= known.at
    void this.contacts.put(key, {
      phone: newer ? message.sender_phone : (known?.phone ?? null),
      lid: newer ? message.sender_lid : (known?.lid ?? null),
      push_name: newer
        ? (message.push_name ?? known?.push_name ?? null)
        : (known?.push_name ?? message.push_name ?? null),
      at: Math.max(at, known?.at ?? 0),
      messages,
    })
  }
}
