import { AppError } from '../errors'
import {
  comparePositions,
  type MessagePosition,
  type MessageStore,
  positionOf,
  type StoredChat,
  type StoredContact,
} from '../store/message-store'
import type { DeliveryStatus, LinkdeskMessage } from '../contract/message'
import type { ChatFlags } from '../contract/chat-flags'
import { type ChatSettings, UNSET_FLAGS } from './chat-settings'
import type { SavedNames } from './saved-names'
import type { StarredMessages } from './starred-messages'
import type { LabelManagement, LabelView } from './labels'

/** A chat as the account's stored messages show it. */
export interface ChatSummary {
  chat: string
  is_group: boolean
  /** The newest stored message of the chat. */
  last_message: LinkdeskMessage
  /** Received messages not marked read (mark_read, auto_read). */
  unread: number
  messages: number
}

/** A chat as chats lists it: its summary, its app-state flags and its labels (Business accounts). */
export type ListedChat = ChatSummary & ChatFlags & { labels: LabelView[] }

/** Someone the account has messages from or to: a 1:1 chat, or a group member who wrote. */
export interface ContactSummary {
  chat: string
  phone: string | null
  lid: string | null
  /** The name they gave themselves, from their newest message that carried it. */
  push_name: string | null
  /** The name the phone's owner saved for them (the account's app state), kept current. */
  saved_name: string | null
}

export const PAGE_LIMIT = { default: 50, max: 100 }

/** How many chats or contacts a page holds unless `limit` says otherwise, and at most. */
export const LIST_LIMIT = { default: 100, max: 500 }

/** A page of a list: the items, and the cursor of the next page (null on the last one). */
type Page<K extends string, T> = Record<K, T[]> & { next_cursor: string | null }

function encode(value: unknown): string {
  return Buffer.from(JSON.stringify(value)).toString('base64url')
}

function decode<T>(cursor: string, valid: (value: unknown) => value is T, list: string): T {
  let value: unknown
  try {
    value = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'))
  } catch {
    value = undefined
  }
  if (!valid(value)) {
    throw new AppError('invalid_parameter', `cursor is not one a page of ${list} gave.`, {
      details: { parameter: 'cursor' },
    })
  }
  return value
}

const isPosition = (value: unknown): value is MessagePosition =>
  Array.isArray(value) &&
  value.length === 3 &&
  typeof value[0] === 'number' &&
  typeof value[1] === 'number' &&
  typeof value[2] === 'string'

const isChatId = (value: unknown): value is string => typeof value === 'string'

/** The page shown of `limit + 1` read, and its next cursor (from its last item) when there was more. */
function paged<T>(
  found: T[],
  limit: number,
  cursorOf: (item: T) => string,
): { shown: T[]; next: string | null } {
  const shown = found.slice(0, limit)
  const last = shown.at(-1)
  return { shown, next: found.length > limit && last !== undefined ? cursorOf(last) : null }
}

function summaryOf({ chat, last, unread, messages }: StoredChat): ChatSummary {
  return { chat, is_group: last.message.is_group, last_message: last.message, unread, messages }
}

/**
 * The account's chats, their messages and its contacts, as the message store knows them: what arrived and
 * was sent since linking, within the store's retention (30 days), nothing from before. Each is a page read
 * from the store's chat index, newest first (contacts by chat id), with a cursor to the next page.
 */
export class StoredChats {
  constructor(
    private readonly store: MessageStore,
    /** Without it (a bench reading the store alone), every chat shows its flags unset. */
    private readonly settings?: Pick<ChatSettings, 'flags'>,
    private readonly names?: Pick<SavedNames, 'of'>,
    private readonly stars?: Pick<StarredMessages, 'starred'>,
    private readonly labels?: Pick<LabelManagement, 'ofChats'>,
  ) {}

  private async flagged(instanceId: string, chats: ChatSummary[]): Promise<ListedChat[]> {
    const ids = chats.map(({ chat }) => chat)
    const flags = await this.settings?.flags(instanceId, ids)
    const labels = await this.labels?.ofChats(instanceId, ids)
    return chats.map((chat) => ({
      ...chat,
      ...(flags?.get(chat.chat) ?? UNSET_FLAGS),
      labels: labels?.get(chat.chat) ?? [],
    }))
  }

  /** Chats, newest last message first, a page at a time. */
  async chats(
    instanceId: string,
    page: { limit?: number; cursor?: string },
  ): Promise<Page<'chats', ListedChat>> {
    const limit = page.limit ?? LIST_LIMIT.default
    const before = page.cursor === undefined ? undefined : decode(page.cursor, isPosition, 'chats')
    const found = await this.store.chats(instanceId, limit + 1, before)
    const { shown, next } = paged(found, limit, ({ last }) => encode(positionOf(last)))
    return { chats: await this.flagged(instanceId, shown.map(summaryOf)), next_cursor: next }
  }

  /**
   * The chats with a stored message whose text or caption holds `text` (case-insensitive), newest last
   * message first, at most LIST_LIMIT.max of them on one page.
   */
  async search(instanceId: string, text: string): Promise<ListedChat[]> {
    const ids = await this.store.searchChats(instanceId, text, LIST_LIMIT.max)
    const found = await Promise.all(ids.map((chat) => this.store.chat(instanceId, chat)))
    const chats = found.flatMap((chat) => (chat ? [chat] : []))
    chats.sort((a, b) => comparePositions(positionOf(b.last), positionOf(a.last)))
    return this.flagged(instanceId, chats.map(summaryOf))
  }

  /**
   * One chat's summary, or none when it has no stored message: by the chat id its messages carry, or by the
   * other id the network gave for it (a LID whose chat joined its phone number's is found by either).
   */
  async chat(instanceId: string, chat: string): Promise<ListedChat[]> {
    let found = await this.store.chat(instanceId, chat)
    if (!found) {
      const [newest] = await this.store.chatPage(instanceId, chat, 1)
      const canonical = newest?.message.chat
      if (canonical && canonical !== chat) found = await this.store.chat(instanceId, canonical)
    }
    return found ? this.flagged(instanceId, [summaryOf(found)]) : []
  }

  /** One chat's messages, newest first, a page at a time; `next_cursor` is null on the last page. */
  async messages(
    instanceId: string,
    chat: string,
    page: { limit?: number; cursor?: string },
  ): Promise<
    Page<'messages', LinkdeskMessage> & { starred: string[]; statuses: Record<string, DeliveryStatus> }
  > {
    const limit = page.limit ?? PAGE_LIMIT.default
    const before = page.cursor === undefined ? undefined : decode(page.cursor, isPosition, 'chat_messages')
    const found = await this.store.chatPage(instanceId, chat, limit + 1, before)
    const { shown, next } = paged(found, limit, (stored) => encode(positionOf(stored)))
    const messages = shown.map((stored) => stored.message)
    const [starred, statuses] = await Promise.all([
      this.stars?.starred(
        instanceId,
        messages.map(({ id }) => id),
      ),
      this.store.statusesOf(
        instanceId,
        shown.filter(({ direction }) => direction === 'out'),
      ),
    ])
    return {
      messages,
      next_cursor: next,
      starred: [...(starred ?? [])],
      statuses: Object.fromEntries(statuses),
    }
  }

  /** The people who wrote, by chat id, a page at a time. */
  async contacts(
    instanceId: string,
    page: { limit?: number; cursor?: string },
  ): Promise<Page<'contacts', ContactSummary>> {
    const limit = page.limit ?? LIST_LIMIT.default
    const after = page.cursor === undefined ? undefined : decode(page.cursor, isChatId, 'contacts')
    const found = await this.store.contacts(instanceId, limit + 1, after)
    const { shown, next } = paged(found, limit, ({ chat }) => encode(chat))
    const pn = (contact: StoredContact) => (contact.phone ? `${contact.phone}@s.whatsapp.net` : contact.chat)
    const names = await this.names?.of(instanceId, [...shown.map(({ chat }) => chat), ...shown.map(pn)])
    const named = shown.map((contact) => ({
      ...contact,
      saved_name: names?.get(contact.chat) ?? names?.get(pn(contact)) ?? null,
    }))
    return { contacts: named, next_cursor: next }
  }
}
