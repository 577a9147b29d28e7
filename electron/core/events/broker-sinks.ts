import type { LinkdeskEvent } from '../contract/events'
import type { Logger } from '../logger'
import type { SinkSpec } from '../store/settings-store'
import { NatsPublisher } from './nats-publisher'
import { RabbitPublisher } from './rabbitmq-publisher'
import { describe, type Publisher } from './sink-publisher'
import type { AttemptResult } from './webhook-delivery'

export { DEFAULT_EXCHANGE, DEFAULT_STREAM } from './sink-publisher'

/** The kinds of broker sink, as add_sink takes them. */
export const SINK_KINDS = ['rabbitmq', 'nats'] as const
export type SinkKind = (typeof SINK_KINDS)[number]

/** A broker address as it may be shown and logged: its password (or token) replaced by `***`. */
export function redactUrl(value: string): string {
  try {
    const url = new URL(value)
    if (url.password) url.password = '***'
    else if (url.username && url.protocol.startsWith('nats')) url.username = '***'
    return url.toString()
  } catch {
    return '(unreadable address)'
  }
}

/** An error's text without the address's secrets (a client may quote the URL it was given). */
function scrub(text: string, url: string): string {
  let parsed: URL
  try {
    parsed = new URL(url)
  } catch {
    return text
  }
  let out = text.split(url).join(redactUrl(url))
  for (const secret of [parsed.password, parsed.username])
    if (secret && secret.length > 2)
      out = out.split(decodeURIComponent(secret)).join('***').split(secret).join('***')
  return out
}

/** Rejects after `ms` (and runs `onTimeout`), unless the promise settles first. */
async function within<T>(promise: Promise<T>, ms: number, onTimeout: () => void): Promise<T> {
  let timer: NodeJS.Timeout | undefined
  try {
    return await Promise.race([
      promise,
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => {
          onTimeout()
          reject(new Error(`no confirmation within ${ms} ms`))
        }, ms)
      }),
    ])
  } finally {
    clearTimeout(timer)
  }
}

/** A sink as a delivery worker hands it over: its id, the broker address and where it publishes. */
export interface SinkTarget {
  sinkId: string
  url: string
  sink: SinkSpec
}

/**
 * The broker connections of the sinks: one per sink, opened at its first attempt and kept; a failed attempt
 * closes it, so the next one (after the backoff) connects afresh. A publish is an attempt as a webhook POST
 * is: delivered once the broker confirmed every message, else retried.
 */
export class BrokerSinks {
  private readonly publishers = new Map<string, { key: string; publisher: Promise<Publisher> }>()
  /** The last failure of each sink whose latest publish failed. */
  private readonly failing = new Map<string, string>()
  private closed = false

  constructor(private readonly log: Logger) {}

  async publish(
    target: SinkTarget,
    events: readonly LinkdeskEvent[],
    attempt: number,
    timeoutMs: number,
    stop: AbortSignal,
  ): Promise<AttemptResult> {
    const started = performance.now()
    const elapsed = () => Math.round((performance.now() - started) * 10) / 10
    const key = `${target.url}\u0000${JSON.stringify(target.sink)}`
    let publisher: Promise<Publisher> | undefined
    try {
      publisher = this.publisherOf(target, key, timeoutMs)
      const open = await within(publisher, timeoutMs, () => undefined)
      await within(open.publish(events, attempt, timeoutMs), timeoutMs, () => void open.close())
      if (this.failing.delete(target.sinkId))
        this.log.info({ sinkId: target.sinkId, kind: target.sink.kind }, 'broker sink publishing again')
      return { kind: 'delivered', statusCode: null, latencyMs: elapsed() }
    } catch (error) {
      if (stop.aborted) return { kind: 'aborted' }
      await this.drop(target.sinkId, publisher)
      const text = scrub(describe(error), target.url)
      // Each retry meets the same misconfiguration until the operator fixes it: said once, not at every attempt.
      const repeated = this.failing.get(target.sinkId) === text
      this.failing.set(target.sinkId, text)
      this.log[repeated ? 'debug' : 'warn'](
        { sinkId: target.sinkId, kind: target.sink.kind, error: text },
        'broker sink publish failed',
      )
      return { kind: 'retry', statusCode: null, latencyMs: elapsed(), error: `${target.sink.kind}: ${text}` }
    }
  }

  private publisherOf(target: SinkTarget, key: string, timeoutMs: number): Promise<Publisher> {
    if (this.closed) return Promise.reject(new Error('the event service has stopped'))
    const current = this.publishers.get(target.sinkId)
    if (current && current.key === key) {
      const { publisher } = current
      return publisher.then(
        (open) => (open.broken ? this.reopen(target, key, timeoutMs, publisher) : open),
        () => this.reopen(target, key, timeoutMs, publisher),
      )
    }
    if (current)
      void current.publisher.then(
        (open) => open.close(),
        () => undefined,
      )
    return this.reopen(target, key, timeoutMs)
  }

  private reopen(target: SinkTarget, key: string, timeoutMs: number, replacing?: Promise<Publisher>) {
    const current = this.publishers.get(target.sinkId)
    if (current && replacing && current.publisher !== replacing) return current.publisher
    const { sink, url } = target
    const publisher: Promise<Publisher> =
      sink.kind === 'rabbitmq'
        ? RabbitPublisher.open(url, sink.exchange, timeoutMs)
        : NatsPublisher.open(url, sink.stream, timeoutMs)
    publisher.catch(() => undefined)
    this.publishers.set(target.sinkId, { key, publisher })
    return publisher
  }

  /** Forgets a sink's connection after a failed attempt (closing it), so that the next attempt reconnects. */
  private async drop(sinkId: string, publisher: Promise<Publisher> | undefined): Promise<void> {
    const current = this.publishers.get(sinkId)
    if (!current || (publisher && current.publisher !== publisher)) return
    this.publishers.delete(sinkId)
    await current.publisher.then(
      (open) => open.close(),
      () => undefined,
    )
  }

  /** Closes every connection (the service stops). */
  async close(): Promise<void> {
    this.closed = true
    const all = [...this.publishers.values()]
    this.publishers.clear()
    await Promise.all(
      all.map(({ publisher }) =>
        publisher.then(
          (open) => open.close(),
          () => undefined,
        ),
      ),
    )
  }
}
