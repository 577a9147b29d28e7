import { AppError } from '../errors'
import { type MessageStore, type StoredMessage, inChat } from '../store/message-store'
import type { LinkdeskMessage } from '../contract/message'

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

/** Someone the account has messages from or to: a 1:1 chat, or a group member who wrote. */
export interface ContactSummary {
  chat: string
  phone: string | null
  lid: string | null
  /** The name they gave themselves, from their newest message that carried it. */
  push_name: string | null
}

export const PAGE_LIMIT = { default: 50, max: 100 }

/** Where a message stands in its chat: its time, then (within a second) when it was stored, then its id. */
type Position = [number, number, string]

function positionOf(stored: StoredMessage): Position {
  return [Number(stored.message.timestamp), stored.storedAt, stored.message.id]
}

function compare(a: Position, b: Position): number {
  return a[0] - b[0] || a[1] - b[1] || a[2].localeCompare(b[2])
}

const newestFirst = (a: StoredMessage, b: StoredMessage) => compare(positionOf(b), positionOf(a))

/** A page cursor: the position of the last message a page showed. */
function cursorOf(stored: StoredMessage): string {
  return Buffer.from(JSON.stringify(positionOf(stored))).toString('base64url')
}

function afterCursor(cursor: string): (stored: StoredMessage) => boolean {
  let position: unknown
  try {
    position = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'))
  } catch {
    position = undefined
  }
  const valid =
    Array.isArray(position) &&
    typeof position[0] === 'number' &&
    typeof position[1] === 'number' &&
    typeof position[2] === 'string'
  if (!valid) {
    throw new AppError('invalid_parameter', 'cursor is not one a page of chat_messages gave.', {
      details: { parameter: 'cursor' },
    })
  }
  return (stored) => compare(positionOf(stored), position as Position) < 0
}

/**
 * The account's chats, their messages and its contacts, as the message store knows them: what arrived and
 * was sent since linking, within the store's retention (30 days), nothing from before.
 */
export class ChatBook {
  constructor(private readonly store: MessageStore) {}

  async chats(instanceId: string): Promise<ChatSummary[]> {
    const byChat = new Map<string, StoredMessage[]>()
    for (const stored of await this.store.all(instanceId)) {
      const list = byChat.get(stored.message.chat) ?? []
      list.push(stored)
      byChat.set(stored.message.chat, list)
    }
    const chats = [...byChat].map(([chat, list]) => {
      const [last] = list.sort(newestFirst) as [StoredMessage]
      const summary: ChatSummary = {
        chat,
        is_group: last.message.is_group,
        last_message: last.message,
        unread: list.filter((stored) => stored.direction === 'in' && !stored.read).length,
        messages: list.length,
      }
      return { summary, last }
    })
    return chats.sort((a, b) => newestFirst(a.last, b.last)).map(({ summary }) => summary)
  }

  /** One chat's messages, newest first, a page at a time; `next_cursor` is null on the last page. */
  async messages(
    instanceId: string,
    chat: string,
    page: { limit?: number; cursor?: string },
  ): Promise<{ messages: LinkdeskMessage[]; next_cursor: string | null }> {
    const limit = page.limit ?? PAGE_LIMIT.default
    const after = page.cursor ? afterCursor(page.cursor) : () => true
    const list = (await this.store.all(instanceId))
      .filter((stored) => inChat(stored, chat) && after(stored))
      .sort(newestFirst)
    const shown = list.slice(0, limit)
    const last = shown.at(-1)
    return {
      messages: shown.map((stored) => stored.message),
      next_cursor: list.length > limit && last ? cursorOf(last) : null,
    }
  }

  async contacts(instanceId: string): Promise<ContactSummary[]> {
    const byChat = new Map<string, { contact: ContactSummary; at: number }>()
    for (const { message } of await this.store.all(instanceId)) {
      if (message.from_me) continue
      const at = Number(message.timestamp)
      const known = byChat.get(message.sender)
      if (known && known.at >= at && known.contact.push_name) continue
      byChat.set(message.sender, {
        at,
        contact: {
          chat: message.sender,
          phone: message.sender_phone,
          lid: message.sender_lid,
          push_name: message.push_name ?? known?.contact.push_name ?? null,
        },
      })
    }
    return [...byChat.values()].map(({ contact }) => contact).sort((a, b) => a.chat.localeCompare(b.chat))
  }
}
