import type { Dispatcher } from 'undici'
import type { LinkdeskEvent } from '../contract/events'
import type { WebhookSettings } from '../contract/event-settings'
import { WEBHOOK_HEADERS, signWebhook } from './webhook-signature'

/** What one HTTP attempt gave: delivered, worth retrying (maybe not before retryAfterMs), or refused for good. */
export type AttemptResult =
  | { kind: 'delivered'; statusCode: number | null; latencyMs: number }
  | { kind: 'retry'; statusCode: number | null; latencyMs: number; error: string; retryAfterMs?: number }
  | { kind: 'reject'; statusCode: number | null; latencyMs: number; error: string }
  | { kind: 'aborted' }

export interface AttemptRequest {
  url: string
  secret: string
  /** The events the POST carries, in order: one, or several when the webhook takes batches. */
  events: readonly LinkdeskEvent[]
  /** The body is a JSON array of the events (the webhook takes batches); otherwise the one event itself. */
  batched: boolean
  /** 1 for the first attempt (of the batch's first event, when batched). */
  attempt: number
}

/** The event header's value for a batched POST, whose event-id header lists every event's id. */
export const BATCH_EVENT = 'batch'

export interface AttemptDeps {
  /** undici's connection pool (keep-alive) the attempts go through. */
  dispatcher: Dispatcher
  timeoutMs: number
  now: () => number
  /** Aborted when the core stops: the attempt is then neither a success nor a failure. */
  stop: AbortSignal
  /** In a cluster: the node posting, sent as `x-linkdesk-node` (which node delivered, for operators). */
  node?: string
}

const ERROR_BODY_CHARS = 200

/**
 * The body and the event headers of a POST: one event as itself, or a batch as a JSON array of events with
 * `batch` as the event header and their ids, comma-separated and in order, as the event-id header.
 */
function payload({ events, batched }: AttemptRequest): { body: string; event: string; eventId: string } {
  if (!batched) {
    const [event] = events
    if (!event || events.length > 1) throw new Error('an unbatched POST carries exactly one event')
    return { body: JSON.stringify(event), event: event.event, eventId: event.event_id }
  }
  return {
    body: JSON.stringify(events),
    event: BATCH_EVENT,
    eventId: events.map((event) => event.event_id).join(','),
  }
}

/** What one POST came to, before it is judged: the receiver's answer, or no answer (and why). */
export type PostAnswer =
  | {
      kind: 'answer'
      statusCode: number
      location: string | null
      retryAfter: string | null
      /** The first characters of the answer's body. */
      text: string
      latencyMs: number
    }
  | { kind: 'error'; error: string; timedOut: boolean; latencyMs: number }

/** One POST as it is sent: the request with its signature's timestamp (and, in a cluster, the node posting). */
export interface PostRequest extends AttemptRequest {
  /** Unix seconds, signed with the body. */
  timestamp: string
  node?: string
}

/**
 * Builds the body of the event (or the batch), signs it and POSTs it once, within the timeout, following no
 * redirect. Runs where the POSTs go: in a delivery thread (delivery-thread.ts), or here (`attemptDelivery`).
 */
export function postWebhook(
  request_: PostRequest,
  deps: { dispatcher: Dispatcher; timeoutMs: number; signal: AbortSignal },
): Promise<PostAnswer> {
  const { body, event, eventId } = payload(request_)
  const { timestamp } = request_
  let url: URL
  try {
    url = new URL(request_.url)
  } catch {
    return Promise.resolve({
      kind: 'error',
      error: 'network error: invalid URL',
      timedOut: false,
      latencyMs: 0,
    })
  }
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    'user-agent': 'Linkdesk-Webhook/1',
    [WEBHOOK_HEADERS.event]: event,
    [WEBHOOK_HEADERS.eventId]: eventId,
    [WEBHOOK_HEADERS.attempt]: String(request_.attempt),
    [WEBHOOK_HEADERS.timestamp]: timestamp,
    [WEBHOOK_HEADERS.signature]: signWebhook(request_.secret, timestamp, body),
    ...(request_.node !== undefined && { 'x-linkdesk-node': request_.node }),
  }
  return new Promise((resolve) => {
    const answer = new PostHandler(deps.timeoutMs, deps.signal, resolve)
    // The dispatcher reports its refusals (a bad origin, a closed pool) to the handler's onError.
    deps.dispatcher.dispatch(
      { origin: url.origin, path: `${url.pathname}${url.search}`, method: 'POST', headers, body },
      answer,
    )
  })
}

type Settle = (answer: PostAnswer) => void

/**
 * One POST's answer, taken from undici's dispatcher as it arrives: its status, the two headers the judgement
 * reads and the start of its body. What `request()` adds per call (a response stream, an async resource, an
 * abort-signal listener, every header parsed) is on the path of every event and buys nothing here.
 */
class PostHandler implements Dispatcher.DispatchHandler {
  private readonly started = performance.now()
  private readonly timer: NodeJS.Timeout
  private abortRequest: ((reason: Error) => void) | undefined
  private reason: Error | undefined
  private timedOut = false
  private settled = false
  private statusCode = 0
  private location: string | null = null
  private retryAfter: string | null = null
  private text = ''

  constructor(
    timeoutMs: number,
    private readonly stop: AbortSignal,
    private readonly settle: Settle,
  ) {
    this.timer = setTimeout(() => {
      this.timedOut = true
      this.abort(new Error('timed out'))
    }, timeoutMs)
    if (stop.aborted) this.abort(new Error('stopped'))
    else stop.addEventListener('abort', this.onStop, { once: true })
  }

  private readonly onStop = () => this.abort(new Error('stopped'))

  /** Aborts now if the request has started, or as soon as it does. */
  private abort(reason: Error): void {
    this.reason ??= reason
    this.abortRequest?.(reason)
  }

  onConnect(abort: (reason?: Error) => void): void {
    this.abortRequest = abort
    if (this.reason) abort(this.reason)
  }

  onHeaders(statusCode: number, rawHeaders: Buffer[]): boolean {
    // 1xx answers come before the final one and say nothing about the delivery.
    if (statusCode < 200) return true
    this.statusCode = statusCode
    for (let i = 0; i + 1 < rawHeaders.length; i += 2) {
      const name = rawHeaders[i]!.toString('latin1').toLowerCase()
      if (name === 'location') this.location ??= rawHeaders[i + 1]!.toString('latin1')
      else if (name === 'retry-after') this.retryAfter ??= rawHeaders[i + 1]!.toString('latin1')
    }
    return true
  }

  onData(chunk: Buffer): boolean {
    // A 2xx answer's body is read to its end (the connection stays open for the next POST) but not kept.
    if (this.statusCode >= 200 && this.statusCode < 300) return true
    this.text += chunk.toString()
    // A longer answer is cut off, not read to its end.
    if (this.text.length >= ERROR_BODY_CHARS) {
      this.answered()
      this.abort(new Error('answer cut off'))
    }
    return true
  }

  onComplete(): void {
    this.answered()
  }

  onError(error: Error): void {
    if (this.settled) return
    this.finish({
      kind: 'error',
      error: networkError(error),
      timedOut: this.timedOut,
      latencyMs: this.elapsed(),
    })
  }

  private answered(): void {
    if (this.settled) return
    const { statusCode, location, retryAfter, text } = this
    this.finish({ kind: 'answer', statusCode, location, retryAfter, text, latencyMs: this.elapsed() })
  }

  private finish(answer: PostAnswer): void {
    this.settled = true
    clearTimeout(this.timer)
    this.stop.removeEventListener('abort', this.onStop)
    // undici frees the connection for the next request in an immediate it queues once the answer has ended
    // (after this call): settled behind it, the next POST goes on that connection rather than on a second one
    // opened because this one still looked busy.
    queueMicrotask(() => setImmediate(this.settle, answer))
  }

  private elapsed(): number {
    return Math.round((performance.now() - this.started) * 10) / 10
  }
}

/**
 * Judges a POST's outcome: delivered, worth retrying, or refused for good; aborted when it got no answer
 * because the core stopped (an answer that came first still counts).
 */
export function judgeAnswer(
  answer: PostAnswer,
  deps: { timeoutMs: number; now: () => number; stop: AbortSignal },
): AttemptResult {
  if (answer.kind === 'answer') return classify(answer, deps.now())
  if (deps.stop.aborted) return { kind: 'aborted' }
  const { latencyMs } = answer
  if (answer.timedOut) {
    return { kind: 'retry', statusCode: null, latencyMs, error: `no answer within ${deps.timeoutMs} ms` }
  }
  return { kind: 'retry', statusCode: null, latencyMs, error: answer.error }
}

/** POSTs the event (or the batch) to the receiver once, signed, within the timeout, following no redirect. */
export async function attemptDelivery(request_: AttemptRequest, deps: AttemptDeps): Promise<AttemptResult> {
  const timestamp = String(Math.floor(deps.now() / 1000))
  const answer = await postWebhook(
    { ...request_, timestamp, ...(deps.node !== undefined && { node: deps.node }) },
    { dispatcher: deps.dispatcher, timeoutMs: deps.timeoutMs, signal: deps.stop },
  )
  return judgeAnswer(answer, deps)
}

function classify(answer: Extract<PostAnswer, { kind: 'answer' }>, now: number): AttemptResult {
  const { statusCode, latencyMs } = answer
  if (statusCode >= 200 && statusCode < 300) return { kind: 'delivered', statusCode, latencyMs }
  if (statusCode >= 300 && statusCode < 400) {
    const location = answer.location ?? 'another address'
    return {
      kind: 'reject',
      statusCode,
      latencyMs,
      error: `HTTP ${statusCode}: redirects are not followed (to ${location}); set webhook_url to the final address`,
    }
  }
  const snippet = answer.text.trim().slice(0, ERROR_BODY_CHARS)
  const error = `HTTP ${statusCode}${snippet ? `: ${snippet}` : ''}`
  if (statusCode === 408 || statusCode === 429 || statusCode >= 500) {
    const retryAfterMs = parseRetryAfter(answer.retryAfter, now)
    return {
      kind: 'retry',
      statusCode,
      latencyMs,
      error,
      ...(retryAfterMs !== undefined && { retryAfterMs }),
    }
  }
  return { kind: 'reject', statusCode, latencyMs, error }
}

function networkError(error: unknown): string {
  const { code, message } = error as { code?: string; message?: string }
  return `network error: ${code ?? message ?? 'unknown'}`
}

/** A Retry-After header (seconds or an HTTP date) as milliseconds from now; undefined if absent or unreadable. */
export function parseRetryAfter(value: string | null, now: number): number | undefined {
  if (value === null) return undefined
  const trimmed = value.trim()
  if (/^\d+$/.test(trimmed)) return Number(trimmed) * 1000
  const date = Date.parse(trimmed)
  return Number.isNaN(date) ? undefined : Math.max(0, date - now)
}

/**
 * The wait before attempt `attempt + 1`: the base doubled per attempt made, capped, with "equal jitter" (half
 * fixed, half random) so that receivers coming back are not hit by every instance at once.
 */
export function retryDelayMs(
  attempts: number,
  settings: WebhookSettings,
  random: () => number = Math.random,
): number {
  const exponential = settings.backoffBaseMs * 2 ** Math.min(30, Math.max(0, attempts - 1))
  const capped = Math.min(settings.backoffMaxMs, exponential)
  return Math.round(capped / 2 + random() * (capped / 2))
}
