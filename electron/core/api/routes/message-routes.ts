import { AppError } from '../../errors'
import { documentedSendFields, SEND_TYPES } from '../../kinds'
import type { MessageService } from '../../messages/message-service'
import type { RoutePlugin } from '../build-api'
import { defineOperation, type Operation } from '../operation'
import { CHAT_NUMBER } from './chat-field'

export interface MessageRoutesDeps {
  messages: MessageService
}

const SEND_DESCRIPTION = [
  'Sends text (`type=text`, `message` = the text) or a file (`type=media`, `media_url`, optional `message` as',
  'caption and `filename` to send it as a document with that name) to a phone number (digits with country',
  'code; `+`, spaces, dashes and parentheses are ignored) or a chat id (`<number>@s.whatsapp.net`,',
  '`<id>@g.us` for groups, `<lid>@lid`). Numbers are checked on the network first (422 recipient_not_found,',
  'as for a group that does not exist or that the account is not in).',
  'Media is fetched by Linkdesk (http/https, size and time limits), or uploaded as the `file` part of a',
  'multipart/form-data body instead, and typed from its content: images,',
  'videos and audio are sent as such, anything else as a document. The answer comes once the network',
  'acknowledged the message (504 upstream_timeout otherwise; it may still arrive). Sends of one instance',
  'are paced (see limits); when too many wait, 429 rate_limited with Retry-After. With `idempotency_key`',
  '(or an `Idempotency-Key` header), a retried request answers the first message instead of sending again.',
  'For media, `message` holds the media message with its safe fields only (type, size, name, caption,',
  'SHA-256 of the content): never the keys or URLs to download it.',
  '\n\n`type=voice` sends a voice note (push-to-talk, with its length and waveform) from `media_url` or the',
  '`file` part: Ogg/Opus as is, other audio converted with ffmpeg (422 media_unavailable naming the accepted',
  'format when none is installed). `type=video_note` sends a video as a round video note, `type=sticker` an',
  'image as a 512×512 WebP sticker (converted). Any file may come as `media_base64` instead (a JSON or form',
  'body, within the body limit), and `view_once=true` makes a `media` image or video open once. `type=location` sends `latitude` and `longitude` (decimal degrees; 422',
  'invalid_location out of range) with an optional `location_name` and `address`. `type=contacts` sends',
  'contact cards, each `<name>:<number>`. Any type may quote an earlier message with `reply_to` (its id,',
  'sent or received; 422 quoted_not_found when unknown) and mention people with `mentions` (numbers; each',
  '`@<number>` in the text is mentioned too). Lists (`contacts`, `mentions`) are a JSON array, the key',
  'repeated, or one comma-separated value; decimals are JSON numbers or strings such as `-33.8568`.',
].join(' ')

/** send_message (and its aliases send, send_group) and the media download URL of received messages. */
export function messageOperations({ messages }: MessageRoutesDeps): Operation[] {
  return [
    defineOperation({
      name: 'send_message',
      aliases: ['send', 'send_group'],
      tag: 'Messages',
      summary:
        'Send text, an image, a video, audio, a document, a voice or video note, a sticker, a location or contact cards.',
      description: SEND_DESCRIPTION,
      auth: 'token',
      instance: true,
      fields: documentedSendFields(
        {
          number: { ...CHAT_NUMBER, required: true },
          type: {
            type: 'string',
            required: true,
            enum: SEND_TYPES,
            description:
              '`text`, `media`, `voice` (a voice note), `video_note` (a round video), `sticker`, `location` or `contacts`.',
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

/** GET {base}/media/{instance_id}/{message_id}: the file of a message, with the API's access token. */
export function mediaDownloadRoutes({ messages }: MessageRoutesDeps): RoutePlugin {
  return (app, { access, prefix }) => {
    app.get<{ Params: { instanceId: string; messageId: string } }>(
      `${prefix}/media/:instanceId/:messageId`,
      { config: { auth: 'token' } },
      async (request, reply) => {
        const record = access(request.params.instanceId, request.principal)
        const media = await messages.media(record.id, request.params.messageId)
        return reply
          .header('content-type', media.mimetype)
          .header('content-disposition', contentDisposition(media.fileName))
          .header('x-content-type-options', 'nosniff')
          .header('cache-control', 'private, no-store')
          .send(media.data)
      },
    )
  }
}
