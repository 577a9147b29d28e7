import { createHash } from 'node:crypto'
import type { Limits } from '../config'
import { AppError } from '../errors'
import type { EventSink } from '../contract/events'
import type { Logger } from '../logger'
import type {
  SentAnswer,
  WaAccount,
  WaConnection,
  WaOutgoingContent,
  WaQuotedMessage,
  WaSendOptions,
  WaSentMessage,
} from '../contract/network'
import type { AckTracker } from './ack-tracker'
import type { IdempotencyLedger, LedgerSlot } from './idempotency-ledger'
import { unhandledCase } from '../exhaustive'
import type { UploadedMedia } from '../contract/media'
import { type FetchedMedia, fetchMedia, uploadedMedia } from './media-fetcher'
import { decodeBase64Media } from './base64-media'
import type { LinkPreviewer } from './link-preview'
import { toSticker } from './media-convert/sticker-image'
import { VOICE_NOTE_MIMETYPE, type VoiceNoteConverter } from './media-convert/voice-note-audio'
import { type MessageStore, networkKeyOf } from '../store/message-store'
import type { LinkdeskMessage } from '../contract/message'
import { parseRecipient, type Recipient } from '../contract/recipient'
import type { RecipientDirectory } from './recipient-directory'
import { checkCoordinates, contactCards, mentionedChatIds } from './send-kinds'
import { SendQueue } from './send-queue'

export const SEND_TYPES = ['text', 'media', 'voice', 'video_note', 'sticker', 'location', 'contacts'] as const
export type SendType = (typeof SEND_TYPES)[number]

/** One send_message request, already read from the API parameters. */
export interface SendRequest {
  number: string
  type: SendType
  /** The text, or the caption of media. */
  message?: string
  mediaUrl?: string
  /** The file itself, uploaded instead of a media_url. */
  upload?: UploadedMedia
  /** The file as base64 in the body (a `data:` URL too), instead of media_url or a file part. */
  mediaBase64?: string
  fileName?: string
  /** For `media`: an image or video the recipient can open once. */
  viewOnce?: boolean
  /** For `location`: degrees, and an optional place name and address. */
  latitude?: number
  longitude?: number
  locationName?: string
  address?: string
  /** For `contacts`: `<name>:<number>` items. */
  contacts?: string[]
  /** The id of a stored message (sent or received) this one replies to. */
  replyTo?: string
  /** Numbers to mention, beside the `@<number>`s in the text. */
  mentions?: string[]
  /** For `text`: attach a preview of the first link (off unless asked). */
  linkPreview?: boolean
  idempotencyKey?: string
}

export interface MessageSenderDeps {
  limits: Limits
  store: MessageStore
  ledger: IdempotencyLedger
  directory: RecipientDirectory
  acks: AckTracker
  events: EventSink
  logger: Logger
  /** The instance's messaging operations, once connected; rejects with not_connected when it cannot send. */
  connection(instanceId: string): Promise<WaConnection>
  /** Makes any audio the Ogg/Opus a voice note must be. */
  voiceNotes: VoiceNoteConverter
  /** Makes the preview of a text's first link, when a send asks for one. */
  linkPreviews: LinkPreviewer
  /** Called once a sent message is stored and acknowledged, to mark it sent. */
  onAcknowledged?(instanceId: string, id: string, chat: string): void
  /** How long a send waits for the network's acknowledgement. */
  ackTimeoutMs?: number
}

const DEFAULT_ACK_TIMEOUT_MS = 30_000

/** A send without an idempotency key: the network adapter picks its id, nothing is recorded. */
const UNKEYED: LedgerSlot<SentAnswer> = {
  messageId: async (newId) => newId(),
  commit: async () => undefined,
}

function textOf(request: SendRequest): string | undefined {
  return request.message === undefined || request.message === '' ? undefined : request.message
}

/** Parameters that belong to other types than the request's. */
const WITH_FILE: readonly SendType[] = ['media', 'voice', 'video_note', 'sticker']
const ONLY_FOR: Array<[keyof SendRequest, string, readonly SendType[]]> = [
  ['mediaUrl', 'media_url', WITH_FILE],
  ['upload', 'file', WITH_FILE],
  ['mediaBase64', 'media_base64', WITH_FILE],
  ['fileName', 'filename', ['media']],
  ['viewOnce', 'view_once', ['media']],
  ['latitude', 'latitude', ['location']],
  ['longitude', 'longitude', ['location']],
  ['locationName', 'location_name', ['location']],
  ['address', 'address', ['location']],
  ['contacts', 'contacts', ['contacts']],
  ['linkPreview', 'link_preview', ['text']],
  ['message', 'message', ['text', 'media']],
]

/** Parameters the seed's text and media already check themselves, with their own messages. */
const SEED_CHECKED = new Set<keyof SendRequest>(['mediaUrl', 'upload', 'fileName', 'message'])

/** The new types' own checks, and the new parameters refused where they do not belong. */
function validateKinds(request: SendRequest): void {
  const seedType = request.type === 'text' || request.type === 'media'
  for (const [field, parameter, types] of ONLY_FOR) {
    if (seedType && SEED_CHECKED.has(field)) continue
    if (request[field] !== undefined && request[field] !== '' && !types.includes(request.type)) {
      throw new AppError('invalid_parameter', `${parameter} is not used with type ${request.type}.`, {
        details: { parameter },
      })
    }
  }
  if (request.type === 'text' || request.type === 'media') return
  const file = request.mediaUrl ?? request.upload ?? request.mediaBase64
  const required: Record<Exclude<SendType, 'text' | 'media'>, Array<[unknown, string]>> = {
    voice: [[file, 'media_url']],
    video_note: [[file, 'media_url']],
    sticker: [[file, 'media_url']],
    location: [
      [request.latitude, 'latitude'],
      [request.longitude, 'longitude'],
    ],
    contacts: [[request.contacts, 'contacts']],
  }
  const missing = required[request.type].filter(([value]) => value === undefined).map(([, name]) => name)
  if (missing.length > 0) {
    const what = WITH_FILE.includes(request.type)
      ? 'media_url, media_base64, or the file as a multipart file part'
      : missing.join(', ')
    throw new AppError(
      'missing_parameter',
      `Missing required parameter: ${what} (type is ${request.type}).`,
      {
        details: { parameters: missing },
      },
    )
  }
  if (request.latitude !== undefined && request.longitude !== undefined) {
    checkCoordinates(request.latitude, request.longitude)
  }
  if (request.contacts) contactCards(request.contacts)
}

/** The file of a send is not the kind its type needs. */
function notA(kind: string, request: SendRequest, mimetype: string): AppError {
  const parameter = request.upload ? 'file' : request.mediaBase64 !== undefined ? 'media_base64' : 'media_url'
  return new AppError('media_unavailable', `${parameter} is not ${kind} (it is ${mimetype}).`, {
    details: { parameter },
  })
}

/** Checks what can be checked without the network: a bad request never reaches the queue. */
function validate(request: SendRequest, limits: Limits): void {
  validateKinds(request)
  mentionedChatIds(request.mentions ?? [], undefined)
  const text = textOf(request)
  if (request.type === 'text' && text === undefined) {
    throw new AppError('missing_parameter', 'Missing required parameter: message.', {
      details: { parameters: ['message'] },
    })
  }
  if (text !== undefined && text.length > limits.textChars) {
    throw new AppError(
      'payload_too_large',
      `message is longer than the ${limits.textChars.toLocaleString('en-US')} character limit.`,
      { details: { parameter: 'message', limit_chars: limits.textChars } },
    )
  }
  if (request.type === 'media' && !request.mediaUrl && !request.upload && !request.mediaBase64) {
    throw new AppError(
      'missing_parameter',
      'Missing required parameter: media_url, or the file as a multipart file part (type is media).',
      { details: { parameters: ['media_url'] } },
    )
  }
  if (request.mediaUrl && request.upload) {
    throw new AppError('invalid_parameter', 'Give media_url or a file part, not both.', {
      details: { parameter: 'file' },
    })
  }
  if (request.mediaBase64 && (request.mediaUrl || request.upload)) {
    throw new AppError('invalid_parameter', 'Give one of media_url, media_base64 or a file part.', {
      details: { parameter: 'media_base64' },
    })
  }
  if (request.type === 'text' && (request.mediaUrl || request.upload || request.fileName)) {
    const parameter = request.mediaUrl ? 'media_url' : request.upload ? 'file' : 'filename'
    throw new AppError('invalid_parameter', 'media_url, file and filename are only for type media.', {
      details: { parameter },
    })
  }
}

function fingerprint(request: SendRequest, jid: string): string {
  const { type, message, mediaUrl, fileName, upload } = request
  const file = upload ? createHash('sha256').update(upload.data).digest('hex') : null
  const { latitude, longitude, locationName, address, contacts, replyTo, mentions, viewOnce } = request
  const base64 = request.mediaBase64 && createHash('sha256').update(request.mediaBase64).digest('hex')
  const linkPreview = request.linkPreview || undefined
  const kinds = {
    latitude,
    longitude,
    locationName,
    address,
    contacts,
    replyTo,
    mentions,
    viewOnce,
    base64,
    linkPreview,
  }
  const given = Object.values(kinds).some((value) => value !== undefined)
  // Without an upload or the newer fields the list keeps its earlier shape, so keys recorded before still match.
  const fields = [
    jid,
    type,
    message ?? null,
    mediaUrl ?? null,
    fileName ?? null,
    ...(file ? [file] : []),
    ...(given ? [kinds] : []),
  ]
  return createHash('sha256').update(JSON.stringify(fields)).digest('hex')
}

/**
 * send_message: validates, checks the recipient on the network, fetches media, waits its turn in the
 * instance's paced queue, sends, stores the message for retries, and answers once the network acknowledged
 * it. With an idempotency key, a retried request answers the first attempt's message instead of sending again.
 */
export class MessageSender {
  readonly queue: SendQueue
  private readonly log: Logger
  private readonly ackTimeoutMs: number

  constructor(private readonly deps: MessageSenderDeps) {
    const { limits } = deps
    this.queue = new SendQueue({
      intervalMs: limits.sendIntervalMs,
      jitterMs: limits.sendJitterMs,
      maxWaiting: limits.sendQueueMax,
    })
    this.log = deps.logger.child({ module: 'messages' })
    this.ackTimeoutMs = deps.ackTimeoutMs ?? DEFAULT_ACK_TIMEOUT_MS
  }

  /** Sends one message for an instance the caller may use; resolves with the seed's sent-message result. */
  async send(instanceId: string, request: SendRequest): Promise<SentAnswer> {
    validate(request, this.deps.limits)
    const recipient = parseRecipient(request.number)
    await this.quoted(instanceId, request)
    const key = request.idempotencyKey
    if (!key) return this.sendNew(instanceId, recipient, request, UNKEYED)
    // A key seen before answers from the ledger, even if the instance cannot send right now.
    return this.deps.ledger.run(instanceId, key, fingerprint(request, recipient.jid), (slot) =>
      this.sendNew(instanceId, recipient, request, slot),
    )
  }

  private async sendNew(
    instanceId: string,
    recipient: Recipient,
    request: SendRequest,
    slot: LedgerSlot<SentAnswer>,
  ): Promise<SentAnswer> {
    const jid = await this.resolve(instanceId, recipient)
    return this.deliver(instanceId, jid, request, slot)
  }

  /** Sends content built in the instance's turn to a number or chat id, checked on the network first. */
  async sendTo(
    instanceId: string,
    number: string,
    build: () => Promise<WaOutgoingContent>,
  ): Promise<SentAnswer> {
    const jid = await this.resolve(instanceId, parseRecipient(number))
    return this.sendPrepared(instanceId, jid, build)
  }

  /** The chat id of a number or chat id, checked on the network (recipient_not_found when absent). */
  chatOf(instanceId: string, number: string): Promise<string> {
    return this.resolve(instanceId, parseRecipient(number))
  }

  /** The chat id of a recipient: a number is looked up on the network (recipient_not_found when absent). */
  private async resolve(instanceId: string, recipient: Recipient): Promise<string> {
    const connection = await this.deps.connection(instanceId)
    this.queue.assertRoom(instanceId)
    return this.deps.directory.resolve(instanceId, recipient, (phones) =>
      connection
        .lookup(phones)
        .then((found) => new Map(found.filter((f) => f.jid).map((f) => [f.number, f.jid as string]))),
    )
  }

  private async deliver(
    instanceId: string,
    jid: string,
    request: SendRequest,
    slot: LedgerSlot<SentAnswer>,
  ): Promise<SentAnswer> {
    const options = {
      quoted: await this.quoted(instanceId, request),
      mentions: mentionedChatIds(request.mentions ?? [], textOf(request)),
    }
    // Media is fetched in the instance's turn: one file in memory per instance, and messages go out in
    // the order they were asked for.
    return this.sendPrepared(instanceId, jid, () => this.content(request), { options, slot })
  }

  /**
   * Sends content in the instance's paced turn (built there, so a media fetch holds the turn), stores it
   * and announces it (message.sent unless `announce` says otherwise), and answers once the network
   * acknowledged it.
   */
  async sendPrepared(
    instanceId: string,
    jid: string,
    build: () => Promise<WaOutgoingContent>,
    how: {
      options?: Omit<WaSendOptions, 'messageId'>
      slot?: LedgerSlot<SentAnswer>
      announce?: (message: LinkdeskMessage) => Promise<unknown>
    } = {},
  ): Promise<SentAnswer> {
    const slot = how.slot ?? UNKEYED
    const { sent, account } = await this.queue.run(instanceId, jid, async () => {
      const content = await build()
      const connection = await this.deps.connection(instanceId)
      // With a key, the id is recorded before the message leaves: a retry after a crash sends it again under
      // the same id, which the recipient takes as the same message.
      const messageId = await slot.messageId(() => connection.newMessageId())
      return {
        sent: await connection.send(jid, content, { ...how.options, messageId }),
        account: connection.account,
      }
    })
    await this.record(instanceId, sent, jid, account, how.announce)
    await slot.commit(sent.answer)
    await this.deps.acks.wait(instanceId, sent.id, this.ackTimeoutMs)
    this.deps.onAcknowledged?.(instanceId, sent.id, jid)
    return sent.answer
  }

  /** The stored message `reply_to` names, to quote; quoted_not_found when there is none. */
  private async quoted(instanceId: string, request: SendRequest): Promise<WaQuotedMessage | undefined> {
    if (request.replyTo === undefined) return undefined
    const stored = await this.deps.store.get(instanceId, request.replyTo)
    if (!stored?.content) {
      throw new AppError('quoted_not_found', `reply_to: no stored message has the id ${request.replyTo}.`, {
        details: { parameter: 'reply_to' },
      })
    }
    const key = networkKeyOf(stored)
    return { key, content: Uint8Array.from(stored.content) }
  }

  private async content(request: SendRequest): Promise<WaOutgoingContent> {
    const text = textOf(request)
    switch (request.type) {
      case 'text': {
        // In the instance's turn, like a media fetch: bounded by its timeout, after which the text goes alone.
        const linkPreview = request.linkPreview
          ? await this.deps.linkPreviews.preview(text as string)
          : undefined
        return { kind: 'text', text: text as string, ...(linkPreview ? { linkPreview } : {}) }
      }
      case 'media':
        return this.mediaContent(request, text)
      case 'voice': {
        const audio = await this.media(request)
        // A video's sound track makes a voice note too; anything else is not worth handing to ffmpeg.
        if (audio.kind !== 'audio' && audio.kind !== 'video') throw notA('audio', request, audio.mimetype)
        return {
          kind: 'voice',
          media: await this.deps.voiceNotes.toVoiceNote(audio.data),
          mimetype: VOICE_NOTE_MIMETYPE,
        }
      }
      case 'video_note': {
        const video = await this.media(request)
        if (video.kind !== 'video') throw notA('a video', request, video.mimetype)
        return { kind: 'video_note', media: video.data, mimetype: video.mimetype }
      }
      case 'sticker': {
        const image = await this.media(request)
        if (image.kind !== 'image') throw notA('an image', request, image.mimetype)
        return { kind: 'sticker', media: await toSticker(image.data) }
      }
      case 'location':
        return {
          kind: 'location',
          latitude: request.latitude as number,
          longitude: request.longitude as number,
          name: request.locationName,
          address: request.address,
        }
      case 'contacts':
        return { kind: 'contacts', contacts: contactCards(request.contacts ?? []) }
      default:
        return unhandledCase(request.type, 'send type')
    }
  }

  private async mediaContent(request: SendRequest, text: string | undefined): Promise<WaOutgoingContent> {
    const media = await this.media(request)
    if (request.viewOnce) {
      if (media.kind !== 'image' && media.kind !== 'video') {
        throw new AppError(
          'invalid_parameter',
          `view_once is for images and videos, not ${media.mimetype}.`,
          {
            details: { parameter: 'view_once' },
          },
        )
      }
      return { kind: media.kind, media: media.data, mimetype: media.mimetype, caption: text, viewOnce: true }
    }
    return {
      kind: media.kind,
      media: media.data,
      mimetype: media.mimetype,
      fileName: media.fileName,
      caption: media.kind === 'audio' ? undefined : text,
    }
  }

  /** The file of a media or voice send: uploaded with the request, or fetched from media_url. */
  private async media(request: SendRequest): Promise<FetchedMedia> {
    const { mediaBytes: maxBytes, mediaFetchMs: timeoutMs } = this.deps.limits
    if (request.mediaBase64 !== undefined) {
      const decoded = decodeBase64Media(request.mediaBase64)
      return uploadedMedia(decoded, { maxBytes, fileName: request.fileName, source: 'media_base64' })
    }
    return request.upload
      ? uploadedMedia(request.upload, { maxBytes, fileName: request.fileName })
      : fetchMedia(request.mediaUrl as string, {
          maxBytes,
          timeoutMs,
          fileName: request.fileName,
          log: this.log,
        })
  }

  /** Stores the sent message (for getMessage and statuses) and tells the event stream. */
  private async record(
    instanceId: string,
    sent: WaSentMessage,
    jid: string,
    account: WaAccount,
    announce?: (message: LinkdeskMessage) => Promise<unknown>,
  ) {
    const message: LinkdeskMessage = {
      id: sent.id,
      chat: jid,
      is_group: jid.endsWith('@g.us'),
      from_me: true,
      sender: `${account.number}@s.whatsapp.net`,
      sender_phone: account.number,
      sender_lid: account.lid ? account.lid.replace(/:\d+@/, '@') : null,
      push_name: account.name,
      ...sent.shown,
      timestamp: sent.timestamp,
    }
    const stored = this.deps.store.addSent(instanceId, { message, content: sent.content })
    const announced = announce
      ? announce(message)
      : this.deps.events.emitForMessage(instanceId, sent.id, 'message.sent', { ...message, source: 'api' })
    // The message is out; failing the request now would invite a duplicate. Retries of it may fail.
    await stored.catch((error: unknown) => {
      this.log.error({ err: error, instanceId, messageId: sent.id }, 'storing a sent message failed')
    })
    await announced.catch((error: unknown) => {
      this.log.error({ err: error, instanceId, messageId: sent.id }, 'announcing a sent message failed')
    })
  }

  /** Refuses the waiting sends and acks (core shutdown). */
  close(): void {
    this.queue.close()
  }
}
