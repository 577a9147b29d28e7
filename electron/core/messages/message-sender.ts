import { createHash } from 'node:crypto'
import type { Limits } from '../config'
import { AppError } from '../errors'
import type { EventSink } from '../contract/events'
import {
  type KindContent,
  SEND_FIELDS,
  SEND_KINDS,
  SEND_TYPES,
  type SendKind,
  type SendParams,
} from '../contract/kinds'
import type { Logger } from '../logger'
import type {
  SentAnswer,
  WaAccount,
  WaConnection,
  WaOutgoingContent,
  WaQuotedMessage,
  WaSendOptions,
  WaSentMessage,
  WaStatusAudience,
} from '../contract/network'
import type { AckTracker } from './ack-tracker'
import type { IdempotencyLedger, LedgerSlot } from './idempotency-ledger'
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
import { mentionedChatIds } from './mentions'
import { SendQueue } from './send-queue'
import type { UnacknowledgedSends } from './unacknowledged-sends'

/** One send_message request, already read from the API parameters. */
export interface SendRequest {
  number: string
  /** A kind's send type (`text`, `media`, …). */
  type: string
  /** The kinds' own parameters, by their API names (`message`, `media_url`, `file`, …). */
  params: SendParams
  /** The id of a stored message (sent or received) this one replies to. */
  replyTo?: string
  /** Numbers to mention, beside the `@<number>`s in the text. */
  mentions?: string[]
  idempotencyKey?: string
}

export interface MessageSenderDeps {
  limits: Limits
  store: MessageStore
  ledger: IdempotencyLedger
  directory: RecipientDirectory
  acks: AckTracker
  /** Where a send goes when its acknowledgement does not come in time: sent again until it does. */
  unacknowledged: UnacknowledgedSends
  events: EventSink
  logger: Logger
  /** The instance's messaging operations, once connected; rejects with not_connected when it cannot send. */
  connection(instanceId: string): Promise<WaConnection>
  /** Makes any audio the Ogg/Opus a voice note must be. */
  voiceNotes: VoiceNoteConverter
  /** Makes the preview of a text's first link, when a send asks for one. */
  linkPreviews: LinkPreviewer
  /** The chat's disappearing-messages timer in seconds (0: off), which a message sent to it carries. */
  disappearing?(instanceId: string, chat: string): Promise<number>
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
  const { message } = request.params
  return typeof message === 'string' && message !== '' ? message : undefined
}

function kindOf(request: SendRequest): SendKind<KindContent> {
  const kind = SEND_KINDS.get(request.type)
  if (!kind) throw new AppError('invalid_parameter', `type must be one of: ${SEND_TYPES.join(', ')}.`)
  return kind
}

/** Parameters the seed's text and media check themselves, with their own messages. */
const SEED_CHECKED = new Set(['media_url', 'file', 'filename', 'message'])

/** The kinds' parameters refused where they do not belong, and the other types' own checks. */
function validateKinds(request: SendRequest, kind: SendKind<KindContent>): void {
  for (const [parameter, field] of Object.entries(SEND_FIELDS)) {
    if (kind.seed && SEED_CHECKED.has(parameter)) continue
    const value = request.params[parameter]
    if (value !== undefined && value !== '' && !field.types.includes(request.type)) {
      throw new AppError('invalid_parameter', `${parameter} is not used with type ${request.type}.`, {
        details: { parameter },
      })
    }
  }
  if (kind.seed) return
  const { params } = request
  const file = params.media_url ?? params.file ?? params.media_base64
  const required: Array<[unknown, string]> = kind.file
    ? [[file, 'media_url']]
    : (kind.required ?? []).map((name) => [params[name], name])
  const missing = required.filter(([value]) => value === undefined).map(([, name]) => name)
  if (missing.length > 0) {
    const what = kind.file
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
  kind.validate?.(params)
}

/** The file of a send is not the kind its type needs. */
function notA(kind: string, request: SendRequest, mimetype: string): AppError {
  const { file, media_base64: base64 } = request.params
  const parameter = file ? 'file' : base64 !== undefined ? 'media_base64' : 'media_url'
  return new AppError('media_unavailable', `${parameter} is not ${kind} (it is ${mimetype}).`, {
    details: { parameter },
  })
}

/** Checks what can be checked without the network: a bad request never reaches the queue. */
function validate(request: SendRequest, limits: Limits): void {
  const kind = kindOf(request)
  validateKinds(request, kind)
  mentionedChatIds(request.mentions ?? [], undefined)
  const text = textOf(request)
  const { media_url: mediaUrl, file: upload, media_base64: base64, filename } = request.params
  if (kind.text === 'required' && text === undefined) {
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
  if (kind.seed && kind.file && !mediaUrl && !upload && !base64) {
    throw new AppError(
      'missing_parameter',
      `Missing required parameter: media_url, or the file as a multipart file part (type is ${request.type}).`,
      { details: { parameters: ['media_url'] } },
    )
  }
  if (mediaUrl && upload) {
    throw new AppError('invalid_parameter', 'Give media_url or a file part, not both.', {
      details: { parameter: 'file' },
    })
  }
  if (base64 && (mediaUrl || upload)) {
    throw new AppError('invalid_parameter', 'Give one of media_url, media_base64 or a file part.', {
      details: { parameter: 'media_base64' },
    })
  }
  if (kind.seed && !kind.file && (mediaUrl || upload || filename)) {
    const parameter = mediaUrl ? 'media_url' : upload ? 'file' : 'filename'
    throw new AppError('invalid_parameter', 'media_url, file and filename are only for type media.', {
      details: { parameter },
    })
  }
}

function fingerprint(request: SendRequest, jid: string): string {
  const { type, params, replyTo, mentions } = request
  const upload = params.file as UploadedMedia | undefined
  const file = upload ? createHash('sha256').update(upload.data).digest('hex') : null
  const base64 =
    typeof params.media_base64 === 'string' && params.media_base64
      ? createHash('sha256').update(params.media_base64).digest('hex')
      : undefined
  const own = kindOf(request).fingerprint?.(params) ?? {}
  const kinds = { ...own.before, replyTo, mentions, ...own.after, base64 }
  const given = Object.values(kinds).some((value) => value !== undefined)
  // Without an upload or the newer fields the list keeps its earlier shape, so keys recorded before still match.
  const fields = [
    jid,
    type,
    params.message ?? null,
    params.media_url ?? null,
    params.filename ?? null,
    ...(file ? [file] : []),
    ...(given ? [kinds] : []),
  ]
  return createHash('sha256').update(JSON.stringify(fields)).digest('hex')
}

/**
 * send_message: validates, checks the recipient on the network, fetches media, waits its turn in the
 * instance's paced queue, stores the message (not sending it when that fails), sends it, and answers once the
 * network acknowledged it. With an idempotency key, a retried request answers the first attempt's
 * acknowledged message, or sends that message's id again, instead of sending a second message.
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

  /** Checks a request as send does before anything reaches the network. */
  check(request: SendRequest): void {
    validate(request, this.deps.limits)
  }

  /**
   * Posts a status update (to `status@broadcast`, for the audience's devices), built as send builds its type,
   * in the instance's paced turn; `announce` tells the event stream it left.
   */
  postStatus(
    instanceId: string,
    request: SendRequest,
    status: WaStatusAudience,
    announce: (message: LinkdeskMessage) => Promise<unknown>,
    /** The kind of file a media status must be. */
    file?: 'image' | 'video',
  ): Promise<SentAnswer> {
    validate(request, this.deps.limits)
    const build = async () => {
      const content = await this.content(request)
      if (file && content.kind !== file) {
        const { mimetype } = content as { mimetype?: string }
        throw notA(file === 'image' ? 'an image' : 'a video', request, mimetype ?? 'not a known file')
      }
      return content
    }
    return this.sendPrepared(instanceId, request.number, build, { options: { status }, announce })
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
      expiration: await this.deps.disappearing?.(instanceId, jid),
    }
    // Media is fetched in the instance's turn: one file in memory per instance, and messages go out in
    // the order they were asked for.
    return this.sendPrepared(instanceId, jid, () => this.content(request), { options, slot })
  }

  /**
   * Stores and sends content in the instance's paced turn (built there, so a media fetch holds the turn),
   * announces it (message.sent unless `announce` says otherwise), and answers once the network
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
    let message: LinkdeskMessage | undefined
    const { sent, linkId, sentAt } = await this.queue.run(instanceId, jid, async () => {
      const content = await build()
      const connection = await this.deps.connection(instanceId)
      // With a key, the id is recorded before the message leaves: a retry (after a timeout or a crash) sends
      // it again under the same id, which the network and the recipient take as the same message.
      const messageId = await slot.messageId(() => connection.newMessageId())
      // Stored before it goes: a message that cannot be kept is not sent, and the send fails.
      // A LID whose number is known is the number's chat (one chat per person), sent to as given.
      const phone = jid.endsWith('@lid') ? await connection.phoneOf(jid) : null
      const beforeSending = async (prepared: WaSentMessage) => {
        message = await this.store(instanceId, prepared, { jid, phone }, connection.account)
      }
      return {
        sentAt: Date.now(),
        sent: await connection.send(jid, content, { ...how.options, messageId, beforeSending }),
        linkId: connection.linkId,
      }
    })
    if (message) await this.announce(instanceId, message, how.announce)
    // The ledger keeps the answer only once the network acknowledged the message: until then a retry under
    // the key sends the same id again instead of claiming a send that may never have arrived.
    const acknowledged = async () => {
      await slot.commit(sent.answer)
      this.deps.onAcknowledged?.(instanceId, sent.id, jid)
    }
    try {
      await this.deps.acks.wait(instanceId, sent.id, this.ackTimeoutMs)
    } catch (error) {
      if (error instanceof AppError && error.code === 'upstream_timeout') {
        this.deps.unacknowledged.watch({ instanceId, id: sent.id, chat: jid, linkId, acknowledged }, sentAt)
      }
      throw error
    }
    await acknowledged()
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

  /** The content the request's kind builds, with what the sender lends it (the file, the converters). */
  private content(request: SendRequest): Promise<WaOutgoingContent> {
    return kindOf(request).build(request.params, {
      text: textOf(request),
      file: () => this.media(request),
      notA: (kind, mimetype) => notA(kind, request, mimetype),
      toOggOpus: async (audio) => ({
        media: await this.deps.voiceNotes.toVoiceNote(audio),
        mimetype: VOICE_NOTE_MIMETYPE,
      }),
      toSquareWebp: toSticker,
      linkPreview: (text) => this.deps.linkPreviews.preview(text),
    })
  }

  /** The file of a send: uploaded with the request, decoded from media_base64, or fetched from media_url. */
  private async media(request: SendRequest): Promise<FetchedMedia> {
    const { mediaBytes: maxBytes, mediaFetchMs: timeoutMs } = this.deps.limits
    const params = request.params as {
      media_base64?: string
      file?: UploadedMedia
      media_url?: string
      filename?: string
    }
    const fileName = params.filename
    if (params.media_base64 !== undefined) {
      const decoded = decodeBase64Media(params.media_base64)
      return uploadedMedia(decoded, { maxBytes, fileName, source: 'media_base64' })
    }
    return params.file
      ? uploadedMedia(params.file, { maxBytes, fileName })
      : fetchMedia(params.media_url as string, { maxBytes, timeoutMs, fileName, log: this.log })
  }

  /**
   * Stores a message about to be sent (for getMessage, statuses and sending it again); unavailable when it
   * cannot be kept, so the message is not sent.
   */
  private async store(
    instanceId: string,
    sent: WaSentMessage,
    { jid, phone }: { jid: string; phone: string | null },
    account: WaAccount,
  ): Promise<LinkdeskMessage> {
    const message: LinkdeskMessage = {
      id: sent.id,
      chat: phone ?? jid,
      is_group: jid.endsWith('@g.us'),
      from_me: true,
      sender: `${account.number}@s.whatsapp.net`,
      sender_phone: account.number,
      sender_lid: account.lid ? account.lid.replace(/:\d+@/, '@') : null,
      push_name: account.name,
      ...sent.shown,
      timestamp: sent.timestamp,
    }
    try {
      // Sent to the LID: its network key says so (edits, reactions and quotes address it there).
      const networkKey = phone
        ? { id: sent.id, chat: jid, chatAlt: phone, fromMe: true, participant: null, participantAlt: null }
        : undefined
      await this.deps.store.addSent(instanceId, {
        message,
        content: sent.content,
        ...(networkKey && { networkKey }),
      })
    } catch (error) {
      this.log.error({ err: error, instanceId, messageId: sent.id }, 'storing a message to send failed')
      throw new AppError('unavailable', 'The message could not be stored, so it was not sent: retry later.', {
        cause: error,
      })
    }
    return message
  }

  /** Tells the event stream a stored message left (message.sent unless `announce` says otherwise). */
  private async announce(
    instanceId: string,
    message: LinkdeskMessage,
    announce?: (message: LinkdeskMessage) => Promise<unknown>,
  ): Promise<void> {
    const announced = announce
      ? announce(message)
      : this.deps.events.emitForMessage(instanceId, message.id, 'message.sent', { ...message, source: 'api' })
    // The message is out; failing the request now would invite a duplicate.
    await announced.catch((error: unknown) => {
      this.log.error({ err: error, instanceId, messageId: message.id }, 'announcing a sent message failed')
    })
  }

  /** Refuses the waiting sends and acks (core shutdown). */
  close(): void {
    this.queue.close()
  }
}
