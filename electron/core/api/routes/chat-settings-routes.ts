import { Type } from '@sinclair/typebox'
import { ChatFlagsSchema, DISAPPEARING_TIMERS } from '../../contract/chat-flags'
import { parseRecipient } from '../../contract/recipient'
import { AppError } from '../../errors'
import type { ChatSettingsRequest } from '../../messages/chat-settings'
import type { MessageService } from '../../messages/message-service'
import { defineOperation, type Operation } from '../operation'
import { CHAT_NUMBER } from './chat-field'

export interface ChatSettingsRoutesDeps {
  messages: MessageService
}

const ANSWER = { chat: Type.String({ description: 'The chat id.' }), ...ChatFlagsSchema.properties }

const FLAGS = {
  archived: false,
  pinned: false,
  muted: false,
  muted_until: null,
  marked_unread: false,
  disappearing_timer: 0,
}

/** The longest mute the apps offer beside "always": a year. */
const MAX_MUTE_SECONDS = 366 * 24 * 60 * 60

/** One operation that sets one app-state setting of a chat from `number` and answers the chat's flags. */
function settingOperation(
  messages: MessageService,
  spec: {
    name: string
    summary: string
    description: string
    request: ChatSettingsRequest
    example: Partial<typeof FLAGS>
  },
): Operation {
  return defineOperation({
    name: spec.name,
    tag: 'Chats',
    summary: spec.summary,
    description: `${spec.description} ${COMMON}`,
    auth: 'token',
    instance: true,
    fields: { number: { ...CHAT_NUMBER, required: true } },
    answer: ANSWER,
    example: { status: 'success', chat: '15551234567@s.whatsapp.net', ...FLAGS, ...spec.example },
    handle: async ({ params, instance }) => ({
      status: 'success',
      ...(await messages.chatSettings.change(instance.id, parseRecipient(params.number).jid, spec.request)),
    }),
  })
}

const COMMON =
  'The change goes to the network as the account’s app state, which syncs it to the phone and the other linked devices, and is announced as chat.updated when it changes the chat’s flags. The chat must be among `chats` (a stored message): otherwise 404 chat_not_found, and nothing is sent.'

const MESSAGE_ID = {
  type: 'string',
  required: true,
  maxLength: 128,
  description: 'The id of a stored message (sent or received).',
  example: '3EB0C431C26A1916E07A',
} as const

const STARRED = {
  id: Type.String({ description: 'The message id.' }),
  chat: Type.String({ description: 'The chat id.' }),
  starred: Type.Boolean(),
}

/** star_message and unstar_message: one message's star in the account's app state. */
function starOperation(messages: MessageService, starred: boolean): Operation {
  return defineOperation({
    name: starred ? 'star_message' : 'unstar_message',
    tag: 'Messages',
    summary: starred ? 'Star a message, as the phone does.' : 'Unstar a message.',
    description: `${starred ? 'Stars' : 'Unstars'} a stored message (sent or received). The change goes to the network as the account’s app state, which syncs it to the phone and the other linked devices, and is announced as message.starred when it changes the star; chat_messages lists the starred ids of its page in \`starred\`. 404 message_not_found for a message Linkdesk has not stored, and nothing is sent.`,
    auth: 'token',
    instance: true,
    fields: { message_id: MESSAGE_ID },
    answer: STARRED,
    example: { status: 'success', id: '3EB0C431C26A1916E07A', chat: '15551234567@s.whatsapp.net', starred },
    handle: async ({ params, instance }) => ({
      status: 'success',
      ...(await messages.stars.star(instance.id, params.message_id, starred)),
    }),
  })
}

/** archive, pin, mute and mark unread: the chat settings of the account's app state; and message stars. */
export function chatSettingsOperations({ messages }: ChatSettingsRoutesDeps): Operation[] {
  return [
    starOperation(messages, true),
    starOperation(messages, false),
    settingOperation(messages, {
      name: 'archive_chat',
      summary: 'Archive a chat, as the phone does.',
      description: '`unarchive_chat` takes it back.',
      request: { archived: true },
      example: { archived: true },
    }),
    settingOperation(messages, {
      name: 'unarchive_chat',
      summary: 'Take a chat out of the archive.',
      description: 'Undoes archive_chat (or an archive made on the phone).',
      request: { archived: false },
      example: {},
    }),
    settingOperation(messages, {
      name: 'pin_chat',
      summary: 'Pin a chat to the top of the list, as the phone does (at most 3).',
      description:
        'The network lets an account pin 3 chats: a fourth is 409 pin_limit_reached (details.pinned names the pinned ones), and nothing is sent. `unpin_chat` takes it back.',
      request: { pinned: true },
      example: { pinned: true },
    }),
    settingOperation(messages, {
      name: 'unpin_chat',
      summary: 'Unpin a chat.',
      description: 'Undoes pin_chat (or a pin made on the phone).',
      request: { pinned: false },
      example: {},
    }),
    defineOperation({
      name: 'mute_chat',
      tag: 'Chats',
      summary: 'Mute a chat’s notifications until a time, for a while, or always.',
      description: `Give \`until\` (Unix seconds, in the future) or \`duration\` (seconds, at most a year), or neither to mute it always; an end that has passed is 400 invalid_parameter and nothing is sent. \`unmute_chat\` takes it back. ${COMMON}`,
      auth: 'token',
      instance: true,
      fields: {
        number: { ...CHAT_NUMBER, required: true },
        until: {
          type: 'integer',
          minimum: 0,
          description: 'Unix seconds the mute ends.',
          example: 1795282714,
        },
        duration: {
          type: 'integer',
          minimum: 1,
          maximum: MAX_MUTE_SECONDS,
          description: 'Seconds from now the mute lasts (8 hours: 28800; a week: 604800).',
          example: 28800,
        },
      },
      answer: ANSWER,
      example: {
        status: 'success',
        chat: '15551234567@s.whatsapp.net',
        ...FLAGS,
        muted: true,
        muted_until: 1795282714,
      },
      handle: async ({ params, instance }) => {
        if (params.until !== undefined && params.duration !== undefined) {
          throw new AppError('invalid_parameter', 'Give until or duration, not both.', {
            details: { parameter: 'duration' },
          })
        }
        const now = Date.now()
        let mutedUntil = -1
        if (params.duration !== undefined) mutedUntil = now + params.duration * 1000
        if (params.until !== undefined) {
          if (params.until * 1000 <= now) {
            throw new AppError('invalid_parameter', 'until has passed: give a time in the future.', {
              details: { parameter: 'until' },
            })
          }
          mutedUntil = params.until * 1000
        }
        return {
          status: 'success',
          ...(await messages.chatSettings.change(instance.id, parseRecipient(params.number).jid, {
            mutedUntil,
          })),
        }
      },
    }),
    defineOperation({
      name: 'set_disappearing_timer',
      tag: 'Chats',
      summary: 'Turn disappearing messages on in a chat (24 hours, 7 days or 90 days), or off.',
      description: `\`timer\` is one of the apps’ choices in seconds: 86400 (24 hours), 604800 (7 days), 7776000 (90 days), or 0 to turn it off; any other value is 400 invalid_parameter and nothing is sent. The setting goes into the chat as WhatsApp sends it (a protocol message to a contact, the group’s setting for a group), so the other side’s apps use it too; the messages sent to the chat afterwards carry the timer as their expiration, and \`chats\` shows it as \`disappearing_timer\`. A change is announced as chat.updated; a timer set on another linked device arrives the same way. The chat must be among \`chats\` (a stored message): otherwise 404 chat_not_found, and nothing is sent.`,
      auth: 'token',
      instance: true,
      fields: {
        number: { ...CHAT_NUMBER, required: true },
        timer: {
          type: 'integer',
          required: true,
          minimum: 0,
          maximum: 7776000,
          description: 'Seconds the new messages last: 86400, 604800 or 7776000; 0 turns it off.',
          example: 604800,
        },
      },
      answer: ANSWER,
      example: {
        status: 'success',
        chat: '15551234567@s.whatsapp.net',
        ...FLAGS,
        disappearing_timer: 604800,
      },
      handle: async ({ params, instance }) => {
        if (!DISAPPEARING_TIMERS.some((timer) => timer === params.timer)) {
          throw new AppError(
            'invalid_parameter',
            `timer must be one of ${DISAPPEARING_TIMERS.join(', ')} (seconds; 0 turns it off).`,
            { details: { parameter: 'timer' } },
          )
        }
        return {
          status: 'success',
          ...(await messages.chatSettings.change(instance.id, parseRecipient(params.number).jid, {
            disappearing: params.timer,
          })),
        }
      },
    }),
    settingOperation(messages, {
      name: 'unmute_chat',
      summary: 'Unmute a chat.',
      description: 'Undoes mute_chat (or a mute set on the phone).',
      request: { mutedUntil: null },
      example: {},
    }),
    settingOperation(messages, {
      name: 'mark_chat_unread',
      summary: 'Mark a chat unread, to come back to it, as the phone does.',
      description:
        'Sets the chat’s `marked_unread` flag (the apps show a dot); it sends no receipt. `mark_chat_read` clears it.',
      request: { unread: true },
      example: { marked_unread: true },
    }),
    settingOperation(messages, {
      name: 'mark_chat_read',
      summary: 'Clear a chat’s unread mark.',
      description:
        'Clears `marked_unread` on the account’s devices; read receipts for messages are mark_read’s.',
      request: { unread: false },
      example: {},
    }),
  ]
}
