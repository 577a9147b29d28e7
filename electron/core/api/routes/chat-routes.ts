import { Type } from '@sinclair/typebox'
import { LIST_LIMIT, PAGE_LIMIT } from '../../messages/chat-book'
import { DELIVERY_STATUSES, LinkdeskMessageSchema } from '../../contract/message'
import { Nullable, OneOf } from '../../schema'
import { AppError } from '../../errors'
import type { MessageService } from '../../messages/message-service'
import { parseRecipient } from '../../contract/recipient'
import { defineOperation, type Operation } from '../operation'
import { CHAT_NUMBER } from './chat-field'
import { ChatFlagsSchema } from '../../contract/chat-flags'
import { LabelSchema } from '../../contract/labels'

export interface ChatRoutesDeps {
  messages: MessageService
}

const SAMPLE_MESSAGE = {
  id: '3EB0C4F1A2B3C4D5E6F7',
  chat: '15551234567@s.whatsapp.net',
  from_me: false,
  type: 'text',
  text: 'Hello',
  timestamp: '1795253914',
}

const NEXT_CURSOR = Nullable(
  Type.String({ description: 'Give it as `cursor` for the next page; null on the last one.' }),
)

/** A chat as chats lists it (chat-book's ChatSummary). */
const ChatSummarySchema = Type.Object({
  chat: Type.String(),
  is_group: Type.Boolean(),
  last_message: LinkdeskMessageSchema,
  unread: Type.Integer({ minimum: 0, description: 'Received messages not marked read.' }),
  messages: Type.Integer({ minimum: 0, description: 'Stored messages of the chat.' }),
  ...ChatFlagsSchema.properties,
  labels: Type.Array(LabelSchema, {
    description: 'A WhatsApp Business account’s labels on the chat (always empty on a personal account).',
  }),
})

/** Someone the account has messages from (chat-book's ContactSummary). */
const ContactSummarySchema = Type.Object({
  chat: Type.String(),
  phone: Nullable(Type.String()),
  lid: Nullable(Type.String()),
  push_name: Nullable(Type.String({ description: 'Their newest push name.' })),
  saved_name: Nullable(Type.String({ description: 'The name saved on the phone, kept current.' })),
})

/** `limit` and `cursor` of a list read a page at a time. */
function pageFields(what: string, max: number) {
  return {
    limit: {
      type: 'integer',
      minimum: 1,
      maximum: max,
      description: `${what} a page.`,
      example: 20,
    },
    cursor: {
      type: 'string',
      maxLength: 200,
      description: 'The `next_cursor` of the previous page.',
      example: 'WzE3OTUyNTM5MTQsMTc5NTI1MzkxNDEyMywiM0VCMEM0RjFBMkIzQzRENUU2RjciXQ',
    },
  } as const
}

/** chats, chat_messages and contacts: what the account's stored messages show, read without the network. */
export function chatOperations({ messages }: ChatRoutesDeps): Operation[] {
  const { chats } = messages
  return [
    defineOperation({
      name: 'chats',
      tag: 'Chats',
      summary:
        "The account's chats, newest first, with their last message and unread count, a page at a time.",
      description: `Every chat (a contact or a group) with a stored message: what arrived or was sent since the instance was linked, within the 30-day retention. \`unread\` counts received messages not marked read (mark_read, auto_read). Newest last message first, \`limit\` a page (default ${LIST_LIMIT.default}, at most ${LIST_LIMIT.max}); give \`next_cursor\` as \`cursor\` for the next page (null on the last one): each chat is on one page. With \`number\`, only that chat (none when it has no stored message), to refresh one chat after its message event.`,
      auth: 'token',
      instance: true,
      fields: {
        ...pageFields('Chats', LIST_LIMIT.max),
        number: { ...CHAT_NUMBER, description: `Only this chat. ${CHAT_NUMBER.description}` },
        search: {
          type: 'string',
          minLength: 1,
          maxLength: 200,
          description: `Only the chats with a stored message whose text or caption holds these characters (case-insensitive), newest first, at most ${LIST_LIMIT.max} on one page (next_cursor null); not with number, limit or cursor.`,
          example: 'invoice',
        },
      },
      answer: { chats: Type.Array(ChatSummarySchema), next_cursor: NEXT_CURSOR },
      example: {
        status: 'success',
        chats: [
          {
            chat: '15551234567@s.whatsapp.net',
            is_group: false,
            last_message: SAMPLE_MESSAGE,
            unread: 1,
            messages: 12,
            ...{ archived: false, pinned: true, muted: false, muted_until: null, marked_unread: false },
            disappearing_timer: 0,
            labels: [{ id: '3', name: 'Paid', color: 4 }],
          },
        ],
        next_cursor: null,
      },
      handle: async ({ params, instance }) => {
        if (params.search !== undefined) {
          const extra = (['number', 'limit', 'cursor'] as const).find((name) => params[name] !== undefined)
          if (extra)
            throw new AppError('invalid_parameter', `search reads its own page: give ${extra} without it.`, {
              details: { parameter: extra },
            })
          return {
            status: 'success',
            chats: await chats.search(instance.id, params.search),
            next_cursor: null,
          }
        }
        if (params.number === undefined)
          return {
            status: 'success',
            ...(await chats.chats(instance.id, { limit: params.limit, cursor: params.cursor })),
          }
        if (params.cursor !== undefined || params.limit !== undefined) {
          throw new AppError(
            'invalid_parameter',
            'number reads one chat: give limit and cursor without it.',
            {
              details: { parameter: params.cursor === undefined ? 'limit' : 'cursor' },
            },
          )
        }
        const chat = parseRecipient(params.number).jid
        return { status: 'success', chats: await chats.chat(instance.id, chat), next_cursor: null }
      },
    }),
    defineOperation({
      name: 'chat_messages',
      tag: 'Chats',
      summary: "One chat's stored messages, newest first, a page at a time, with the ticks of its own.",
      description: `Messages of the chat \`number\` (a phone number or chat id), newest first, \`limit\` a page (default ${PAGE_LIMIT.default}, at most ${PAGE_LIMIT.max}); give \`next_cursor\` as \`cursor\` for the next page (null on the last one). Each message has the same fields as message.received.`,
      auth: 'token',
      instance: true,
      fields: {
        number: { ...CHAT_NUMBER, required: true },
        ...pageFields('Messages', PAGE_LIMIT.max),
      },
      answer: {
        messages: Type.Array(LinkdeskMessageSchema),
        next_cursor: NEXT_CURSOR,
        starred: Type.Array(Type.String(), { description: 'The ids of this page’s starred messages.' }),
        statuses: Type.Record(Type.String(), OneOf(DELIVERY_STATUSES), {
          description:
            'The newest delivery status of each of this page’s own messages that has one (its ticks), by id.',
        }),
      },
      example: {
        status: 'success',
        messages: [SAMPLE_MESSAGE],
        next_cursor: null,
        starred: [],
        statuses: { '3EB0A1B2C3D4E5F60718': 'read' },
      },
      handle: async ({ params, instance }) => ({
        status: 'success',
        ...(await chats.messages(instance.id, parseRecipient(params.number).jid, {
          limit: params.limit,
          cursor: params.cursor,
        })),
      }),
    }),
    defineOperation({
      name: 'contacts',
      tag: 'Chats',
      summary:
        'The people the account has messages from, with the names they gave themselves, a page at a time.',
      description: `Everyone who wrote to the account (in 1:1 chats and groups) among the stored messages, with their phone number and LID where known and their newest push name. By chat id (byte order), \`limit\` a page (default ${LIST_LIMIT.default}, at most ${LIST_LIMIT.max}); give \`next_cursor\` as \`cursor\` for the next page (null on the last one).`,
      auth: 'token',
      instance: true,
      fields: pageFields('Contacts', LIST_LIMIT.max),
      answer: { contacts: Type.Array(ContactSummarySchema), next_cursor: NEXT_CURSOR },
      example: {
        status: 'success',
        contacts: [
          {
            chat: '15551234567@s.whatsapp.net',
            phone: '15551234567',
            lid: '123456789012345@lid',
            push_name: 'Alice',
            saved_name: 'Alice Cooper',
          },
        ],
        next_cursor: null,
      },
      handle: async ({ params, instance }) => ({
        status: 'success',
        ...(await chats.contacts(instance.id, { limit: params.limit, cursor: params.cursor })),
      }),
    }),
  ]
}
