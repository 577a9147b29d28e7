import { Type } from '@sinclair/typebox'
import { SEND_FIELDS, type SendField } from '../../contract/kinds'
import { LinkdeskMessageSchema } from '../../contract/message'
import { type FieldSpec, Nullable } from '../../schema'
import { PAGE_LIMIT } from '../../messages/chat-book'
import type { MessageService } from '../../messages/message-service'
import { STATUS_FONTS, STATUS_TYPES } from '../../messages/status-updates'
import { defineOperation, type Operation } from '../operation'
import { SentMessageSchema } from './message-routes'

export interface StatusRoutesDeps {
  messages: MessageService
}

/** A send_message parameter, as post_status takes it. */
function sendField<T extends FieldSpec['type']>(name: string, type: T): FieldSpec & { type: T } {
  const { types: _types, listedAfter: _listed, ...spec } = SEND_FIELDS[name] as SendField
  return { ...spec, type }
}

const STATUS_EXAMPLE = {
  id: '3EB0B5C6D7E8F9A0B1C2',
  chat: 'status@broadcast',
  is_group: false,
  from_me: false,
  sender: '15550002222@s.whatsapp.net',
  sender_phone: '15550002222',
  sender_lid: '123456789012345@lid',
  push_name: 'Bob',
  type: 'text',
  text: 'Out of office today',
  timestamp: '1795253914',
}

/** post_status, statuses and view_status: the account's status updates and its contacts'. */
export function statusOperations({ messages }: StatusRoutesDeps): Operation[] {
  const { statuses } = messages
  return [
    defineOperation({
      name: 'post_status',
      tag: 'Statuses',
      summary: 'Post a status update (text, image, video or voice) to every contact or to the numbers given.',
      description: `A status goes to \`status@broadcast\` for the devices of its recipients (and the account's own), as the phone posts one: to \`numbers\` (each checked on the network: 422 recipient_not_found), or without them to every contact (the people with stored messages, as \`contacts\` lists them). Nobody to send to (an empty list, or no contacts yet) is 422 no_recipients and sends nothing. \`type\` is ${STATUS_TYPES.join(', ')}; the file comes as for send_message (\`media_url\`, \`media_base64\` or a multipart file part; any audio becomes a voice note). A text status may have a \`background_color\` and a \`font\`; a voice status a \`background_color\`. It goes through the instance's paced send queue, is stored in chat status@broadcast (statuses) and announced as status.sent; answers once the network acknowledged it.`,
      auth: 'token',
      instance: true,
      fields: {
        type: {
          type: 'string',
          required: true,
          enum: STATUS_TYPES,
          description: 'What the status is.',
          example: 'text',
        },
        message: {
          ...sendField('message', 'string'),
          description: 'The text, or the caption of an image or video.',
        },
        media_url: sendField('media_url', 'string'),
        media_base64: sendField('media_base64', 'string'),
        file: sendField('file', 'file'),
        background_color: {
          type: 'string',
          maxLength: 9,
          description: 'A text or voice status’s background: `#RRGGBB` or `#AARRGGBB`.',
          example: '#1E6F5C',
        },
        font: {
          type: 'integer',
          description: `A text status’s font, by the network’s number: one of ${STATUS_FONTS.join(', ')}.`,
          example: 1,
        },
        numbers: {
          type: 'list',
          maxItems: 256,
          maxLength: 40,
          description: 'Who sees it (numbers with country code); absent: every contact.',
          example: ['15551234567'],
        },
      },
      answer: {
        message: SentMessageSchema,
        recipients: Type.Array(Type.String(), { description: 'The chat ids it went to.' }),
      },
      example: {
        status: 'success',
        message: {
          key: { remoteJid: 'status@broadcast', fromMe: true, id: '3EB0C6D7E8F9A0B1C2D3' },
          message: {
            extendedTextMessage: { text: 'Open until 6 pm today', backgroundArgb: 4280184668, font: 1 },
          },
          messageTimestamp: '1795248324',
        },
        recipients: ['15551234567@s.whatsapp.net'],
      },
      handle: async ({ params, instance }) => {
        const { type, background_color, font, numbers, ...own } = params
        const posted = await statuses.post(instance.id, {
          type,
          params: own,
          numbers,
          backgroundColor: background_color,
          font,
        })
        return { status: 'success', ...posted }
      },
    }),
    defineOperation({
      name: 'statuses',
      tag: 'Statuses',
      summary:
        'The stored status updates: the account’s own and its contacts’, newest first, a page at a time.',
      description: `The messages of chat status@broadcast: what this instance posted, and contacts' updates that arrived while \`ignore_status\` was off, within the retention. \`limit\` a page (default ${PAGE_LIMIT.default}, at most ${PAGE_LIMIT.max}); give \`next_cursor\` as \`cursor\` for the next page (null on the last one).`,
      auth: 'token',
      instance: true,
      fields: {
        limit: {
          type: 'integer',
          minimum: 1,
          maximum: PAGE_LIMIT.max,
          description: 'Statuses a page.',
          example: 20,
        },
        cursor: {
          type: 'string',
          maxLength: 200,
          description: 'The `next_cursor` of the previous page.',
          example: 'WzE3OTUyNTM5MTQsMTc5NTI1MzkxNDEyMywiM0VCMEM0RjFBMkIzQzRENUU2RjciXQ',
        },
      },
      answer: {
        statuses: Type.Array(LinkdeskMessageSchema),
        next_cursor: Nullable(
          Type.String({ description: 'Give it as `cursor` for the next page; null on the last one.' }),
        ),
      },
      example: { status: 'success', statuses: [STATUS_EXAMPLE], next_cursor: null },
      handle: async ({ params, instance }) => {
        const page = await statuses.statuses(instance.id, { limit: params.limit, cursor: params.cursor })
        return { status: 'success', statuses: page.messages, next_cursor: page.next_cursor }
      },
    }),
    defineOperation({
      name: 'view_status',
      tag: 'Statuses',
      summary: 'View a contact’s status update: its poster sees it viewed.',
      description:
        'Sends the read receipt of the status named by `status_id` (from its status.received event, or statuses) to its poster, as opening it on the phone does (a `read-self` receipt when the account’s read receipts are off), and marks it read. 404 status_not_found for an id that is not a contact’s stored status (the account’s own, another chat’s message, or unknown).',
      auth: 'token',
      instance: true,
      fields: {
        status_id: {
          type: 'string',
          required: true,
          maxLength: 128,
          description: '`data.id` of the status.received event.',
          example: '3EB0B5C6D7E8F9A0B1C2',
        },
      },
      answer: { status_id: Type.String({ description: 'The status viewed.' }) },
      example: { status: 'success', status_id: '3EB0B5C6D7E8F9A0B1C2' },
      handle: async ({ params, instance }) => {
        const viewed = await statuses.view(instance.id, params.status_id)
        return { status: 'success', status_id: viewed.id }
      },
    }),
  ]
}
