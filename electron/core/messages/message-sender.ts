import { createHash } from 'node:crypto'
import type { Limits } from '../config'
import { AppError } from '../errors'
import type { EventSink } from '../events/event-types'
import type { Logger } from '../logger'
import type { SentAnswer, WaAccount, WaConnection, WaOutgoingContent, WaSentMessage } from '../wa/wa-types'
import type { AckTracker } from './ack-tracker'
import type { IdempotencyLedger, LedgerSlot } from './idempotency-ledger'
import { fetchMedia, type UploadedMedia, uploadedMedia } from './media-fetcher'
import type { MessageStore } from './message-store'
import type { LinkdeskMessage } from './message-types'
import { parseRecipient, type Recipient } from './recipient'
import type { RecipientDirectory } from './recipient-directory'
import { SendQueue } from './send-queue'

/** One send_message request, already read from the API parameters. */
export interface SendRequest {
  number: string
  type: 'text' | 'media'
  /** The text, or the caption of media. */
  message?: string
  mediaUrl?: string
  /** The file itself, uploaded instead of a media_url. */
  upload?: UploadedMedia
  fileName?: string
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

/** Checks what can be checked without the network: a bad request never reaches the queue. */
function validate(request: SendRequest, limits: Limits): void {
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
  if (request.type === 'media' && !request.mediaUrl && !request.upload) {
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
  // Without an upload the list keeps its earlier shape, so keys recorded before still match.
  const fields = [jid, type, message ?? null, mediaUrl ?? null, fileName ?? null, ...(file ? [file] : [])]
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
    const connection = await this.deps.connection(instanceId)
    this.queue.assertRoom(instanceId)
    const jid = await this.deps.directory.resolve(instanceId, recipient, (phones) =>
      connection
        .lookup(phones)
        .then((found) => new Map(found.filter((f) => f.jid).map((f) => [f.number, f.jid as string]))),
    )
    return this.deliver(instanceId, jid, request, slot)
  }

  private async deliver(
    instanceId: string,
    jid: string,
    request: SendRequest,
    slot: LedgerSlot<SentAnswer>,
  ): Promise<SentAnswer> {
    // Media is fetched in the instance's turn: one file in memory per instance, and messages go out in
    // the order they were asked for.
    const { content, sent, account } = await this.queue.run(instanceId, async () => {
      const content = await this.content(request)
      const connection = await this.deps.connection(instanceId)
      // With a key, the id is recorded before the message leaves: a retry after a crash sends it again under
      // the same id, which the recipient takes as the same message.
      const messageId = await slot.messageId(() => connection.newMessageId())
      return {
        content,
        sent: await connection.send(jid, content, { messageId }),
        account: connection.account,
      }
    })
    await this.record(instanceId, sent, content, jid, account)
    await slot.commit(sent.answer)
    await this.deps.acks.wait(instanceId, sent.id, this.ackTimeoutMs)
    this.deps.onAcknowledged?.(instanceId, sent.id, jid)
    return sent.answer
  }

  private async content(request: SendRequest): Promise<WaOutgoingContent> {
    const text = textOf(request)
    if (request.type === 'text') return { kind: 'text', text: text as string }
    const { mediaBytes: maxBytes, mediaFetchMs: timeoutMs } = this.deps.limits
    const media = request.upload
      ? uploadedMedia(request.upload, { maxBytes, fileName: request.fileName })
      : await fetchMedia(request.mediaUrl as string, {
          maxBytes,
          timeoutMs,
          fileName: request.fileName,
          log: this.log,
        })
    return {
      kind: media.kind,
      media: media.data,
      mimetype: media.mimetype,
      fileName: media.fileName,
      caption: media.kind === 'audio' ? undefined : text,
    }
  }

  /** Stores the sent message (for getMessage and statuses) and tells the event stream. */
  private async record(
    instanceId: string,
    sent: WaSentMessage,
    content: WaOutgoingContent,
    jid: string,
    account: WaAccount,
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
      type: content.kind,
      text: content.kind === 'text' ? content.text : null,
      caption: content.kind === 'text' ? null : (content.caption ?? null),
      media:
        content.kind === 'text'
          ? null
          : {
              mimetype: content.mimetype ?? null,
              size: Buffer.isBuffer(content.media) ? content.media.length : null,
              filename: content.fileName ?? null,
              sha256: Buffer.isBuffer(content.media)
                ? createHash('sha256').update(content.media).digest('hex')
                : null,
              seconds: null,
              voice_note: false,
              video_note: false,
              download_url: null,
            },
      view_once: false,
      location: null,
      contacts: null,
      mentions: [],
      link_preview: null,
      quoted: null,
      timestamp: sent.timestamp,
    }
    const stored = this.deps.store.addSent(instanceId, { message, content: sent.content })
    this.deps.events.emitForMessage(instanceId, sent.id, 'message.sent', { ...message, source: 'api' })
    try {
      await stored
    } catch (error) {
      // The message is out; failing the request now would invite a duplicate. Retries of it may fail.
      this.log.error({ err: error, instanceId, messageId: sent.id }, 'storing a sent message failed')
    }
  }

  /** Refuses the waiting sends and acks (core shutdown). */
  close(): void {
    this.queue.close()
  }
}
