import { request, type Dispatcher } from 'undici'
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
export async function postWebhook(
  request_: PostRequest,
  deps: { dispatcher: Dispatcher; timeoutMs: number; signal: AbortSignal },
): Promise<PostAnswer> {
  const { body, event, eventId } = payload(request_)
  const { timestamp } = request_
  // One controller and timer per attempt: AbortSignal.timeout with AbortSignal.any costs several times more
  // per request, and each attempt is on the path of every event.
  const abort = new AbortController()
  let timedOut = false
  const timer = setTimeout(() => {
    timedOut = true
    abort.abort()
  }, deps.timeoutMs)
  const onStop = () => abort.abort()
  if (deps.signal.aborted) abort.abort()
  else deps.signal.addEventListener('abort', onStop, { once: true })
  const started = performance.now()
  const elapsed = () => Math.round((performance.now() - started) * 10) / 10
  try {
    const response = await request(request_.url, {
      method: 'POST',
      body,
      dispatcher: deps.dispatcher,
      signal: abort.signal,
      headers: {
        'content-type': 'application/json',
        'user-agent': 'Linkdesk-Webhook/1',
        [WEBHOOK_HEADERS.event]: event,
        [WEBHOOK_HEADERS.eventId]: eventId,
        [WEBHOOK_HEADERS.attempt]: String(request_.attempt),
        [WEBHOOK_HEADERS.timestamp]: timestamp,
        [WEBHOOK_HEADERS.signature]: signWebhook(request_.secret, timestamp, body),
        ...(request_.node !== undefined && { 'x-linkdesk-node': request_.node }),
      },
    })
    const text = await readSnippet(response.body)
    const { headers } = response
    return {
      kind: 'answer',
      statusCode: response.statusCode,
      location: header(headers, 'location'),
      retryAfter: header(headers, 'retry-after'),
      text,
      latencyMs: elapsed(),
    }
  } catch (error) {
    return { kind: 'error', error: networkError(error), timedOut, latencyMs: elapsed() }
  } finally {
    clearTimeout(timer)
    deps.signal.removeEventListener('abort', onStop)
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

type Headers = Record<string, string | string[] | undefined>

function header(headers: Headers, name: string): string | null {
  const value = headers[name]
  return Array.isArray(value) ? (value[0] ?? null) : (value ?? null)
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

/** The start of the answer's body (for the delivery log); a longer answer is cut off, not read to its end. */
async function readSnippet(body: Dispatcher.ResponseData['body']): Promise<string> {
  let text = ''
  for await (const chunk of body) {
    text += String(chunk)
    if (text.length >= ERROR_BODY_CHARS) {
      body.destroy()
      break
    }
  }
  return text
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
