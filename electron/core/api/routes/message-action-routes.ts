import { Type } from '@sinclair/typebox'
import { OneOf } from '../../schema'
import type { MessageService } from '../../messages/message-service'
import { AVAILABILITIES, CHAT_STATES, READ_CHAT_LIMIT, type ShownPresence } from '../../messages/chat-signals'
import { defineOperation, type Operation } from '../operation'
import { CHAT_NUMBER } from './chat-field'
import { SentMessageSchema } from './message-routes'

export interface MessageActionRoutesDeps {
  messages: MessageService
}

const MESSAGE_ID = {
  type: 'string',
  required: true,
  maxLength: 128,
  description:
    'The id of a stored message (sent or received): `message.key.id` of a send, `data.id` of an event.',
  example: '3EB0C431C26A1916E07A',
} as const

/** The answer of an action: the seed's sent-message result, for the protocol message that carries it. */
function answer(key: string, message: Record<string, unknown>) {
  return {
    status: 'success',
    message: {
      key: { remoteJid: '15551234567@s.whatsapp.net', fromMe: true, id: key },
      message,
      messageTimestamp: '1795248324',
    },
  }
}

const TARGET_KEY = { remoteJid: '15551234567@s.whatsapp.net', fromMe: false, id: '3EB0C431C26A1916E07A' }

/**
 * react, edit_message, delete_message and forward_message (what is done to messages already there), and
 * mark_read, send_presence and subscribe_presence (the signals around them).
 */
export function messageActionOperations({ messages }: MessageActionRoutesDeps): Operation[] {
  const { actions, signals } = messages
  return [
    defineOperation({
      name: 'react',
      tag: 'Messages',
      summary: 'React to a message with an emoji, or take the reaction back.',
      description:
        'Puts `emoji` on a stored message (sent or received) in its chat, as the apps do; an empty `emoji` removes this account’s reaction. 404 message_not_found for a message Linkdesk has not seen. The answer comes once the network acknowledged it; the chat’s members see it, and a `message.reaction` event (from_me) is sent.',
      auth: 'token',
      instance: true,
      fields: {
        message_id: MESSAGE_ID,
        emoji: {
          type: 'string',
          maxLength: 64,
          description: 'One emoji; empty or left out to remove this account’s reaction.',
          example: '👍',
        },
      },
      answer: { message: SentMessageSchema },
      example: answer('3EB0D1E2F3A4B5C6D7E8', { reactionMessage: { key: TARGET_KEY, text: '👍' } }),
      handle: async ({ params, instance }) => ({
        status: 'success',
        message: await actions.react(instance.id, params.message_id, params.emoji ?? ''),
      }),
    }),
    defineOperation({
      name: 'edit_message',
      tag: 'Messages',
      summary: 'Change the text of a text this account sent.',
      description:
        'Replaces the text of a text message this account sent, within 15 minutes of sending it (the network’s limit; 422 action_not_allowed after it, for someone else’s message or for a message that is not a text). The recipients’ apps show it as edited; a `message.edited` event (from_me) is sent.',
      auth: 'token',
      instance: true,
      fields: {
        message_id: MESSAGE_ID,
        message: {
          type: 'string',
          required: true,
          description: 'The new text.',
          example: 'Meeting moved to 3 pm',
        },
      },
      answer: { message: SentMessageSchema },
      example: answer('3EB0E2F3A4B5C6D7E8F9', {
        protocolMessage: {
          key: { ...TARGET_KEY, fromMe: true },
          type: 'MESSAGE_EDIT',
          editedMessage: { conversation: 'Meeting moved to 3 pm' },
        },
      }),
      handle: async ({ params, instance }) => ({
        status: 'success',
        message: await actions.edit(instance.id, params.message_id, params.message),
      }),
    }),
    defineOperation({
      name: 'delete_message',
      tag: 'Messages',
      summary: 'Delete a message this account sent, for everyone.',
      description:
        'Deletes a message this account sent for everyone in its chat, within 60 hours of sending it (the network’s limit; 422 action_not_allowed after it, or for someone else’s message). A `message.deleted` event (from_me) is sent.',
      auth: 'token',
      instance: true,
      fields: { message_id: MESSAGE_ID },
      answer: { message: SentMessageSchema },
      example: answer('3EB0F3A4B5C6D7E8F9A0', {
        protocolMessage: { key: { ...TARGET_KEY, fromMe: true }, type: 'REVOKE' },
      }),
      handle: async ({ params, instance }) => ({
        status: 'success',
        message: await actions.revoke(instance.id, params.message_id),
      }),
    }),
    defineOperation({
      name: 'forward_message',
      tag: 'Messages',
      summary: 'Forward a stored message to another chat.',
      description:
        'Sends a stored message (sent or received, any kind) to `number`, marked as forwarded, as send_message would (the number is checked on the network first; same pacing and answer). A `message.sent` event is sent.',
      auth: 'token',
      instance: true,
      fields: {
        message_id: MESSAGE_ID,
        number: { ...CHAT_NUMBER, required: true },
      },
      answer: { message: SentMessageSchema },
      example: answer('3EB0A1B2C3D4E5F6A7B8', {
        extendedTextMessage: { text: 'Hello from Linkdesk' },
      }),
      handle: async ({ params, instance }) => ({
        status: 'success',
        message: await actions.forward(instance.id, params.message_id, params.number),
      }),
    }),
    defineOperation({
      name: 'send_poll',
      tag: 'Messages',
      summary: 'Send a poll; votes come back as poll.vote events with the running tally.',
      description:
        'Sends a poll with `question` and 2 to 12 `options` (each 1 to 100 characters, all different; a list, encoded like `mentions`) to a number or group, single choice unless `multiple=true`. Each vote (and each changed vote) arrives as a `poll.vote` event naming the options picked and the tally of every voter’s latest vote. The answer is the seed’s sent-message shape once the network acknowledged it.',
      auth: 'token',
      instance: true,
      fields: {
        number: { ...CHAT_NUMBER, required: true },
        question: {
          type: 'string',
          required: true,
          maxLength: 255,
          description: 'The question.',
          example: 'Which day suits you?',
        },
        options: {
          type: 'list',
          required: true,
          maxItems: 12,
          maxLength: 100,
          description: '2 to 12 different options.',
          example: ['Monday', 'Tuesday'],
        },
        multiple: {
          type: 'boolean',
          description: 'Voters may pick several options (default: one).',
          example: false,
        },
      },
      answer: { message: SentMessageSchema },
      example: answer('3EB0B5C6D7E8F9A0B1C2', {
        pollCreationMessageV3: {
          name: 'Which day suits you?',
          options: [{ optionName: 'Monday' }, { optionName: 'Tuesday' }],
          selectableOptionsCount: 1,
        },
      }),
      handle: async ({ params, instance }) => ({
        status: 'success',
        message: await actions.sendPoll(instance.id, params.number, {
          question: params.question,
          options: params.options,
          multiple: params.multiple ?? false,
        }),
      }),
    }),
    defineOperation({
      name: 'mark_read',
      tag: 'Messages',
      summary: 'Mark received messages read (read receipts).',
      description: `Sends read receipts (the sender sees blue ticks, where the account's privacy settings send them) for the received messages named in \`message_ids\`, or for a whole chat (\`number\`: its newest ${READ_CHAT_LIMIT.toLocaleString('en-US')} stored received messages). Give one of the two. 404 message_not_found for an id Linkdesk has not stored; 422 action_not_allowed for a message this account sent. Answers how many messages were marked.`,
      auth: 'token',
      instance: true,
      fields: {
        message_ids: {
          type: 'list',
          maxItems: 1000,
          maxLength: 128,
          description: 'Ids of received messages (`data.id` of message.received).',
          example: ['3EB0C431C26A1916E07A'],
        },
        number: {
          ...CHAT_NUMBER,
          description: 'Instead of message_ids: the chat whose received messages to mark read.',
        },
      },
      answer: { read: Type.Integer({ minimum: 0, description: 'How many messages were marked read.' }) },
      example: { status: 'success', read: 1 },
      handle: async ({ params, instance }) => ({
        status: 'success',
        read: await signals.markRead(instance.id, { messageIds: params.message_ids, number: params.number }),
      }),
    }),
    defineOperation({
      name: 'send_presence',
      tag: 'Messages',
      summary: 'Show typing or recording in a chat, or the account online or offline.',
      description:
        'With `number`: shows `typing`, `recording` (a voice note) or `paused` in that chat, as the apps do; it lasts until the next message or `paused`. Without: sets the account `online` or `offline`. While the account is online, the phone does not get notifications: set it offline again when done. The network ignores availability while the account has no display name.',
      auth: 'token',
      instance: true,
      fields: {
        presence: {
          type: 'string',
          required: true,
          enum: [...CHAT_STATES, ...AVAILABILITIES],
          description: '`typing`, `recording` or `paused` (with number); `online` or `offline` (without).',
          example: 'typing',
        },
        number: { ...CHAT_NUMBER, description: 'The chat, for typing, recording and paused.' },
      },
      answer: {
        presence: OneOf([...CHAT_STATES, ...AVAILABILITIES], { description: 'The presence shown.' }),
      },
      example: { status: 'success', presence: 'typing' },
      handle: async ({ params, instance }) => {
        await signals.showPresence(instance.id, params.presence as ShownPresence, params.number)
        return { status: 'success', presence: params.presence }
      },
    }),
    defineOperation({
      name: 'subscribe_presence',
      tag: 'Messages',
      summary: "Follow a contact's presence.",
      description:
        'Asks the network for the contact’s presence: whether it is online (and, if it shares it, when it was last seen), and when it types or records in a chat with this account, each as a `presence.update` event. A subscription lasts while the connection does; subscribe again after a reconnect.',
      auth: 'token',
      instance: true,
      fields: { number: { ...CHAT_NUMBER, required: true } },
      answer: { chat: Type.String({ description: 'The chat id followed.' }) },
      example: { status: 'success', chat: '15557654321@s.whatsapp.net' },
      handle: async ({ params, instance }) => ({
        status: 'success',
        chat: await signals.subscribe(instance.id, params.number),
      }),
    }),
  ]
}
