import { PAGE_LIMIT } from '../../messages/chat-book'
import type { MessageService } from '../../messages/message-service'
import { parseRecipient } from '../../contract/recipient'
import { defineOperation, type Operation } from '../operation'
import { CHAT_NUMBER } from './chat-field'

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

/** chats, chat_messages and contacts: what the account's stored messages show, read without the network. */
export function chatOperations({ messages }: ChatRoutesDeps): Operation[] {
  const { chats } = messages
  return [
    defineOperation({
      name: 'chats',
      tag: 'Chats',
      summary: "The account's chats, newest first, with their last message and unread count.",
      description:
        'Every chat (a contact or a group) with a stored message: what arrived or was sent since the instance was linked, within the 30-day retention. `unread` counts received messages not marked read (mark_read, auto_read).',
      auth: 'token',
      instance: true,
      fields: {},
      example: {
        status: 'success',
        chats: [
          {
            chat: '15551234567@s.whatsapp.net',
            is_group: false,
            last_message: SAMPLE_MESSAGE,
            unread: 1,
            messages: 12,
          },
        ],
      },
      handle: async ({ instance }) => ({ status: 'success', chats: await chats.chats(instance.id) }),
    }),
    defineOperation({
      name: 'chat_messages',
      tag: 'Chats',
      summary: "One chat's stored messages, newest first, a page at a time.",
      description: `Messages of the chat \`number\` (a phone number or chat id), newest first, \`limit\` a page (default ${PAGE_LIMIT.default}, at most ${PAGE_LIMIT.max}); give \`next_cursor\` as \`cursor\` for the next page (null on the last one). Each message has the same fields as message.received.`,
      auth: 'token',
      instance: true,
      fields: {
        number: { ...CHAT_NUMBER, required: true },
        limit: {
          type: 'integer',
          minimum: 1,
          maximum: PAGE_LIMIT.max,
          description: 'Messages a page.',
          example: 20,
        },
        cursor: {
          type: 'string',
          maxLength: 200,
          description: 'The `next_cursor` of the previous page.',
          example: 'MTc5NTI1MzkxNDozRUIwQzRGMUEyQjNDNEQ1RTZGNw',
        },
      },
      example: { status: 'success', messages: [SAMPLE_MESSAGE], next_cursor: null },
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
      summary: 'The people the account has messages from, with the names they gave themselves.',
      description:
        'Everyone who wrote to the account (in 1:1 chats and groups) among the stored messages, with their phone number and LID where known and their newest push name.',
      auth: 'token',
      instance: true,
      fields: {},
      example: {
        status: 'success',
        contacts: [
          {
            chat: '15551234567@s.whatsapp.net',
            phone: '15551234567',
            lid: '123456789012345@lid',
            push_name: 'Alice',
          },
        ],
      },
      handle: async ({ instance }) => ({ status: 'success', contacts: await chats.contacts(instance.id) }),
    }),
  ]
}
