import { Type } from '@sinclair/typebox'
import { LABEL_COLOR_COUNT, LabelSchema } from '../../contract/labels'
import { parseRecipient } from '../../contract/recipient'
import { AppError } from '../../errors'
import type { MessageService } from '../../messages/message-service'
import { defineOperation, type Operation } from '../operation'
import { CHAT_NUMBER } from './chat-field'

export interface LabelRoutesDeps {
  messages: MessageService
}

const BUSINESS_ONLY =
  'Labels are a WhatsApp Business feature: on a personal account every label operation is 422 not_business, and nothing is sent or changed.'

const SYNCED =
  'The change goes to the network as the account’s app state, which syncs it to the phone and the other linked devices.'

const LABEL_ID = {
  type: 'string',
  required: true,
  maxLength: 10,
  check: (value: string) => (/^\d+$/.test(value) ? undefined : 'must be a label id (digits).'),
  description: 'The label’s id, as `labels` lists it; an unknown or deleted one is 404 label_not_found.',
  example: '3',
} as const

const NAME = {
  type: 'string',
  maxLength: 100,
  description: 'What the label reads.',
  example: 'Paid',
} as const

const COLOR = {
  type: 'integer',
  minimum: 0,
  maximum: LABEL_COLOR_COUNT - 1,
  description: 'The apps’ colour index, 0 to 19.',
  example: 4,
} as const

const SAMPLE = { id: '3', name: 'Paid', color: 4 }

const ON_CHAT = { chat: Type.String({ description: 'The chat id.' }), labels: Type.Array(LabelSchema) }

const ON_MESSAGE = {
  id: Type.String({ description: 'The message id.' }),
  chat: Type.String({ description: 'The chat id.' }),
  labels: Type.Array(LabelSchema),
}

function chatOperation(messages: MessageService, labeled: boolean): Operation {
  return defineOperation({
    name: labeled ? 'label_chat' : 'unlabel_chat',
    tag: 'Labels',
    summary: labeled ? 'Put a label on a chat (Business accounts).' : 'Take a label off a chat.',
    description: `${labeled ? 'Puts' : 'Takes'} the label ${labeled ? 'on' : 'off'} the chat and answers the chat’s labels; announced as chat.labeled (source api) when it changes them. ${SYNCED} The chat must be among \`chats\` (a stored message): otherwise 404 chat_not_found. ${BUSINESS_ONLY}`,
    auth: 'token',
    instance: true,
    fields: { number: { ...CHAT_NUMBER, required: true }, label_id: LABEL_ID },
    answer: ON_CHAT,
    example: {
      status: 'success',
      chat: '15551234567@s.whatsapp.net',
      labels: labeled ? [SAMPLE] : [],
    },
    handle: async ({ params, instance }) => ({
      status: 'success',
      ...(await messages.labels.labelChat(
        instance.id,
        parseRecipient(params.number).jid,
        params.label_id,
        labeled,
      )),
    }),
  })
}

function messageOperation(messages: MessageService, labeled: boolean): Operation {
  return defineOperation({
    name: labeled ? 'label_message' : 'unlabel_message',
    tag: 'Labels',
    summary: labeled ? 'Put a label on a message (Business accounts).' : 'Take a label off a message.',
    description: `${labeled ? 'Puts' : 'Takes'} the label ${labeled ? 'on' : 'off'} a stored message (sent or received) and answers its labels; announced as message.labeled (source api) when it changes them. ${SYNCED} 404 message_not_found for a message Linkdesk has not stored. ${BUSINESS_ONLY}`,
    auth: 'token',
    instance: true,
    fields: {
      message_id: {
        type: 'string',
        required: true,
        maxLength: 128,
        description: 'The id of a stored message (sent or received).',
        example: '3EB0C431C26A1916E07A',
      },
      label_id: LABEL_ID,
    },
    answer: ON_MESSAGE,
    example: {
      status: 'success',
      id: '3EB0C431C26A1916E07A',
      chat: '15551234567@s.whatsapp.net',
      labels: labeled ? [SAMPLE] : [],
    },
    handle: async ({ params, instance }) => ({
      status: 'success',
      ...(await messages.labels.labelMessage(instance.id, params.message_id, params.label_id, labeled)),
    }),
  })
}

/** A WhatsApp Business account's labels: listed, created, edited, deleted, put on chats and messages. */
export function labelOperations({ messages }: LabelRoutesDeps): Operation[] {
  const { labels } = messages
  return [
    defineOperation({
      name: 'labels',
      tag: 'Labels',
      summary: 'The Business account’s labels.',
      description: `The labels the account’s app state holds (made here, on the phone or on another linked device), by id; deleted ones are left out. \`chats\` shows each chat’s labels. ${BUSINESS_ONLY}`,
      auth: 'token',
      instance: true,
      fields: {},
      answer: { labels: Type.Array(LabelSchema) },
      example: { status: 'success', labels: [SAMPLE] },
      handle: async ({ instance }) => ({ status: 'success', labels: await labels.list(instance.id) }),
    }),
    defineOperation({
      name: 'create_label',
      tag: 'Labels',
      summary: 'Create a label (Business accounts).',
      description: `Creates a label under the next free id; without \`color\`, the next of the apps’ 20 colours. Announced as label.updated (source api). ${SYNCED} ${BUSINESS_ONLY}`,
      auth: 'token',
      instance: true,
      fields: { name: { ...NAME, required: true }, color: COLOR },
      answer: LabelSchema.properties,
      example: { status: 'success', ...SAMPLE },
      handle: async ({ params, instance }) => {
        const name = params.name.trim()
        if (!name) {
          throw new AppError('invalid_parameter', 'name must not be blank.', {
            details: { parameter: 'name' },
          })
        }
        return {
          status: 'success',
          ...(await labels.create(instance.id, { name, color: params.color })),
        }
      },
    }),
    defineOperation({
      name: 'edit_label',
      tag: 'Labels',
      summary: 'Rename or recolour a label.',
      description: `Changes the label’s \`name\`, \`color\` or both (what is not given stays). Announced as label.updated (source api) when it changes. ${SYNCED} ${BUSINESS_ONLY}`,
      auth: 'token',
      instance: true,
      fields: { label_id: LABEL_ID, name: NAME, color: COLOR },
      answer: LabelSchema.properties,
      example: { status: 'success', ...SAMPLE },
      handle: async ({ params, instance }) => {
        const name = params.name?.trim()
        if (name === '')
          throw new AppError('invalid_parameter', 'name must not be blank.', {
            details: { parameter: 'name' },
          })
        if (name === undefined && params.color === undefined) {
          throw new AppError('missing_parameter', 'Give name, color or both.', {
            details: { parameter: 'name' },
          })
        }
        return {
          status: 'success',
          ...(await labels.edit(instance.id, params.label_id, { name, color: params.color })),
        }
      },
    }),
    defineOperation({
      name: 'delete_label',
      tag: 'Labels',
      summary: 'Delete a label: it comes off every chat and message.',
      description: `Announced as label.updated with \`deleted\` true (source api). ${SYNCED} ${BUSINESS_ONLY}`,
      auth: 'token',
      instance: true,
      fields: { label_id: LABEL_ID },
      answer: { id: Type.String(), deleted: Type.Literal(true) },
      example: { status: 'success', id: '3', deleted: true },
      handle: async ({ params, instance }) => ({
        status: 'success',
        ...(await labels.remove(instance.id, params.label_id)),
      }),
    }),
    chatOperation(messages, true),
    chatOperation(messages, false),
    messageOperation(messages, true),
    messageOperation(messages, false),
  ]
}
