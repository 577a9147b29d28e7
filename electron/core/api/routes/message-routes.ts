import { AppError } from '../../errors'
import { Type } from '@sinclair/typebox'
import { documentedSendFields, SEND_DOCS, SEND_KINDS, SEND_TYPES } from '../../contract/kinds'
import type { MessageService } from '../../messages/message-service'
import type { FastifyReply } from 'fastify'
import type { RoutePlugin } from '../build-api'
import { defineOperation, type Operation } from '../operation'
import { CHAT_NUMBER } from './chat-field'
import { FILE_TYPES, INSTANCE_ID_PARAM, MESSAGE_ID_PARAM } from '../openapi-route'

export interface MessageRoutesDeps {
  messages: MessageService
}

/** The seed's sent-message result: the `message` of send_message's answer, in the protocol's names. */
export const SentMessageSchema = Type.Object({
  key: Type.Object({
    remoteJid: Type.String({ description: 'The chat it went to.' }),
    fromMe: Type.Literal(true),
    id: Type.String({ description: 'The message id.' }),
  }),
  message: Type.Object(
    {},
    {
      description:
        'The content sent, by its protocol name (extendedTextMessage, imageMessage, locationMessage, …); media without keys or URLs.',
      additionalProperties: true,
    },
  ),
  messageTimestamp: Type.String({ description: 'Unix seconds, as a string.' }),
})

/** send_message (and its aliases send, send_group) and the media download URL of received messages. */
export function messageOperations({ messages }: MessageRoutesDeps): Operation[] {
  return [
    defineOperation({
      name: 'send_message',
      aliases: ['send', 'send_group'],
      tag: 'Messages',
      summary: SEND_DOCS.summary,
      description: SEND_DOCS.description,
      auth: 'token',
      instance: true,
      fields: documentedSendFields(
        {
          number: { ...CHAT_NUMBER, required: true },
          type: {
            type: 'string',
            required: true,
            enum: SEND_TYPES,
            description: SEND_DOCS.types,
            example: 'text',
          },
        },
        {
          reply_to: {
            type: 'string',
            maxLength: 128,
            description: 'The id of an earlier message (sent or received) to quote.',
            example: '3EB0C431C26A1916E07A',
          },
          mentions: {
            type: 'list',
            maxItems: 100,
            maxLength: 40,
            description: 'Numbers to mention (with country code); `@<number>` in the text mentions too.',
            example: ['15551234567'],
          },
          idempotency_key: {
            type: 'string',
            maxLength: 200,
            description:
              'Any unique string: a retried request with the same key never sends twice (kept 24 h).',
            example: 'order-1234-confirmation',
          },
        },
      ),
      answer: { message: SentMessageSchema },
      requestExamples: Object.fromEntries(
        [...SEND_KINDS.values()].map(({ example }) => [
          example.params.type,
          {
            summary: example.summary,
            value: {
              access_token: 'YOUR_ACCESS_TOKEN',
              instance_id: '609ACF283XXXX6F2E1B0A4C5',
              number: '15551234567',
              ...example.params,
            },
          },
        ]),
      ),
      example: {
        status: 'success',
        message: {
          key: { remoteJid: '15551234567@s.whatsapp.net', fromMe: true, id: '3EB0C431C26A1916E07A' },
          message: { extendedTextMessage: { text: 'Hello from Linkdesk' } },
          messageTimestamp: '1795248324',
        },
      },
      handle: async ({ params, instance, request }) => {
        const header = request.headers['idempotency-key']
        const idempotencyKey =
          params.idempotency_key ?? (typeof header === 'string' && header ? header : undefined)
        if (idempotencyKey !== undefined && idempotencyKey.length > 200) {
          throw new AppError('invalid_parameter', 'idempotency_key must be at most 200 characters.')
        }
        const { number, type, reply_to: replyTo, mentions, idempotency_key: _key, ...own } = params
        const answer = await messages.send(instance.id, {
          number,
          type,
          params: own,
          replyTo,
          mentions,
          idempotencyKey,
        })
        return { status: 'success', message: answer }
      },
    }),
  ]
}

function contentDisposition(fileName: string | null): string {
  if (!fileName) return 'attachment'
  const ascii = fileName.replace(/[^\x20-\x7e]|["\\]/g, '_')
  return `attachment; filename="${ascii}"; filename*=UTF-8''${encodeURIComponent(fileName)}`
}

/** Answers a downloaded file: its mimetype, an attachment (with its name when it has one), never cached. */
export function sendFile(
  reply: FastifyReply,
  file: { data: Uint8Array; mimetype: string; fileName: string | null },
): FastifyReply {
  return reply
    .header('content-type', file.mimetype)
    .header('content-disposition', contentDisposition(file.fileName))
    .header('x-content-type-options', 'nosniff')
    .header('cache-control', 'private, no-store')
    .send(file.data)
}

/** GET {base}/media/{instance_id}/{message_id}: the file of a message, with the API's access token. */
export function mediaDownloadRoutes({ messages }: MessageRoutesDeps): RoutePlugin {
  return (app, { access, prefix }) => {
    app.get<{ Params: { instanceId: string; messageId: string } }>(
      `${prefix}/media/:instanceId/:messageId`,
      {
        config: {
          auth: 'token',
          openapi: {
            tag: 'Messages',
            summary: 'The file of a stored message with media (its media_url in message events).',
            description:
              'A file not kept here is downloaded from the network and kept. When the network has forgotten it (404/410, as it does after some weeks) the account’s phone is asked to upload it again (the media retry) and it is downloaded from there; when the phone no longer has it either, 410 media_expired.',
            params: { instanceId: INSTANCE_ID_PARAM, messageId: MESSAGE_ID_PARAM },
            answer: {
              contentTypes: FILE_TYPES,
              description:
                'The file, with its mimetype and, for a document, its file name (Content-Disposition).',
            },
          },
        },
      },
      async (request, reply) => {
        const record = access(request.params.instanceId, request.principal)
        const media = await messages.media(record.id, request.params.messageId)
        return sendFile(reply, media)
      },
    )
  }
}
