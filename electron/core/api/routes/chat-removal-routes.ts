import { Type } from '@sinclair/typebox'
import { parseRecipient } from '../../contract/recipient'
import type { MessageService } from '../../messages/message-service'
import { defineOperation, type Operation } from '../operation'
import { CHAT_NUMBER } from './chat-field'

export interface ChatRemovalRoutesDeps {
  messages: MessageService
}

const ANSWER = {
  chat: Type.String({ description: 'The chat id.' }),
  messages_removed: Type.Integer({ minimum: 0, description: 'How many stored messages Linkdesk removed.' }),
}

const COMMON =
  'The change goes to the network as the account’s app state, which syncs it to the phone and the other linked devices. Linkdesk removes the chat’s stored messages (with their statuses and media), so `chat_messages` answers none and `chats` lists the chat again only once a new message arrives. The chat must be among `chats` (a stored message): otherwise 404 chat_not_found, and nothing is sent.'

/** clear_chat and delete_chat: a chat's messages removed for this account, as the phone does. */
export function chatRemovalOperations({ messages }: ChatRemovalRoutesDeps): Operation[] {
  const operation = (kind: 'clear' | 'delete', summary: string, description: string): Operation =>
    defineOperation({
      name: `${kind}_chat`,
      tag: 'Chats',
      summary,
      description: `${description} ${COMMON}`,
      auth: 'token',
      instance: true,
      fields: { number: { ...CHAT_NUMBER, required: true } },
      answer: ANSWER,
      example: { status: 'success', chat: '15551234567@s.whatsapp.net', messages_removed: 12 },
      handle: async ({ params, instance }) => ({
        status: 'success',
        ...(await messages.chatRemoval.remove(instance.id, parseRecipient(params.number).jid, kind)),
      }),
    })
  return [
    operation(
      'clear',
      'Clear a chat’s messages for this account, as the phone does.',
      'The phone and the other devices keep the chat in their lists, empty; its archive, pin, mute and unread flags stay. Announced as chat.cleared (source `api`); a clear made on the phone arrives the same way (source `phone`).',
    ),
    operation(
      'delete',
      'Delete a chat for this account, as the phone does.',
      'The phone and the other devices drop the chat from their lists; Linkdesk forgets its archive, pin, mute and unread flags (the disappearing-messages timer is the chat’s own and stays). The other side keeps its messages. Announced as chat.deleted (source `api`); a delete made on the phone arrives the same way (source `phone`).',
    ),
  ]
}
