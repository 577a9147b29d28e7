import * as amqp from 'amqplib'
import {
  connect as natsConnect,
  headers as natsHeaders,
  StorageType,
  type JetStreamManager,
  type NatsConnection,
} from 'nats'
import type { LinkdeskEvent } from '../contract/events'
import type { Logger } from '../logger'
import type { SinkSpec } from '../store/settings-store'
import type { AttemptResult } from './webhook-delivery'

/** The kinds of broker sink, as add_sink takes them. */
export const SINK_KINDS = ['rabbitmq', 'nats'] as const
export type SinkKind = (typeof SINK_KINDS)[number]

/**
 * The exchange a RabbitMQ sink declares by default, and the stream a NATS sink makes when no stream captures its
 * subjects (a sink left at the default publishes into whichever stream does).
 */
export const DEFAULT_EXCHANGE = 'linkdesk'
export const DEFAULT_STREAM = 'LINKDESK'
/** The subjects a stream made by Linkdesk captures. */
export const NATS_SUBJECTS = 'linkdesk.>'

/** The headers each published message carries (AMQP headers, NATS message headers). */
export const SINK_HEADERS = {
  event: 'x-linkdesk-event',
  eventId: 'x-linkdesk-event-id',
  instanceId: 'x-linkdesk-instance-id',
  attempt: 'x-linkdesk-attempt',
} as const

/** The RabbitMQ routing key of an event: `<instance>.<event>` (such as `609A….message.received`). */
export function routingKey(event: LinkdeskEvent): string {
  return `${event.instance_id}.${event.event}`
}

/** The NATS subject of an event: `linkdesk.<instance>.<event>`. */
export function natsSubject(event: LinkdeskEvent): string {
  return `linkdesk.${event.instance_id}.${event.event}`
}

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

function describe(error: unknown): string {
  const { code, message } = (error ?? {}) as { code?: unknown; message?: unknown }
  const text = typeof message === 'string' && message ? message : String(error)
  return typeof code === 'string' && !text.includes(code) ? `${code}: ${text}` : text
}

/** One open connection to a broker, publishing one sink's events. */
interface Publisher {
  /** Publishes the events in order and resolves once the broker has confirmed every one. */
  publish(events: readonly LinkdeskEvent[], attempt: number, timeoutMs: number): Promise<void>
  /** Whether the connection is gone (the next attempt opens a new one). */
  readonly broken: boolean
  close(): Promise<void>
}

/** The AMQP reply code of a channel or connection closed by the broker (403 access refused, 406 precondition failed). */
function replyCode(error: unknown): number | undefined {
  const { code } = (error ?? {}) as { code?: unknown }
  return typeof code === 'number' ? code : undefined
}

/** A broker's refusal, with what the operator has to change named before the broker's own words. */
function refusal(cause: string, error: unknown): Error {
  return new Error(`${cause} (${describe(error)})`)
}

class RabbitPublisher implements Publisher {
  broken = false
  /** Why the broker closed the channel: a refused publish only rejects its confirm with "channel closed". */
  private closedBecause: unknown

  private constructor(
    private readonly model: amqp.ChannelModel,
    private readonly channel: amqp.ConfirmChannel,
    private readonly exchange: string,
  ) {}

  /**
   * Connects and opens a confirm channel on the exchange: declared (durable, topic) when the user may configure
   * it; an exchange the operator made is used as it is when the user may only write to it.
   */
  static async open(url: string, exchange: string, timeoutMs: number): Promise<RabbitPublisher> {
    const model = await amqp.connect(url, {
      timeout: timeoutMs,
      clientProperties: { connection_name: 'linkdesk' },
    })
    let publisher: RabbitPublisher | undefined
    const lost = () => {
      if (publisher) publisher.broken = true
    }
    model.on('error', lost)
    model.on('close', lost)
    try {
      const channel = await RabbitPublisher.exchangeChannel(model, exchange)
      channel.on('error', (error: unknown) => {
        if (publisher) publisher.closedBecause = error
        lost()
      })
      channel.on('close', lost)
      publisher = new RabbitPublisher(model, channel, exchange)
      return publisher
    } catch (error) {
      await model.close().catch(() => undefined)
      throw error
    }
  }

  private static async exchangeChannel(model: amqp.ChannelModel, exchange: string) {
    const declaring = await model.createConfirmChannel()
    // A refused declaration closes the channel: the error is the declaration's, the event only says so again.
    declaring.on('error', () => undefined)
    try {
      await declaring.assertExchange(exchange, 'topic', { durable: true })
      return declaring
    } catch (error) {
      if (replyCode(error) === 406)
        throw refusal(
          `exchange ${exchange} exists with another type or settings; a sink publishes to a durable topic exchange`,
          error,
        )
      if (replyCode(error) !== 403) throw error
    }
    // Declaring takes the configure permission; a passive check of the operator's exchange does not.
    const checking = await model.createConfirmChannel()
    checking.on('error', () => undefined)
    try {
      await checking.checkExchange(exchange)
      return checking
    } catch (error) {
      throw refusal(
        `exchange ${exchange} does not exist and the user may not declare it (it lacks the configure permission)`,
        error,
      )
    }
  }

  async publish(events: readonly LinkdeskEvent[], attempt: number): Promise<void> {
    for (const event of events) {
      this.channel.publish(this.exchange, routingKey(event), Buffer.from(JSON.stringify(event)), {
        persistent: true,
        contentType: 'application/json',
        messageId: event.event_id,
        type: event.event,
        appId: 'linkdesk',
        timestamp: Number(event.timestamp),
        headers: {
          [SINK_HEADERS.event]: event.event,
          [SINK_HEADERS.eventId]: event.event_id,
          [SINK_HEADERS.instanceId]: event.instance_id,
          [SINK_HEADERS.attempt]: attempt,
        },
      })
    }
    // Publisher confirms: the broker has taken every message (persisted, for durable queues) or refused one.
    try {
      await this.channel.waitForConfirms()
    } catch (error) {
      const why = this.closedBecause
      if (replyCode(why) === 403)
        throw refusal(
          `the user may not publish to exchange ${this.exchange} (it lacks the write permission)`,
          why,
        )
      if (replyCode(why) === 404) throw refusal(`exchange ${this.exchange} does not exist`, why)
      throw why ?? error
    }
  }

  async close(): Promise<void> {
    this.broken = true
    await this.model.close().catch(() => undefined)
  }
}

class NatsPublisher implements Publisher {
  /** The stream each subject published so far goes to, as found on this connection. */
  private readonly streamOf = new Map<string, Promise<string>>()

  private constructor(
    private readonly connection: NatsConnection,
    private readonly manager: JetStreamManager,
    private readonly stream: string,
  ) {}

  get broken(): boolean {
    return this.connection.isClosed()
  }

  static async open(value: string, stream: string, timeoutMs: number): Promise<NatsPublisher> {
    const url = new URL(value)
    const server = `${url.hostname.includes(':') ? `[${url.hostname}]` : url.hostname}:${url.port || '4222'}`
    const user = decodeURIComponent(url.username)
    const pass = decodeURIComponent(url.password)
    const connection = await natsConnect({
      servers: server,
      name: 'linkdesk',
      timeout: timeoutMs,
      reconnect: false,
      ...(url.protocol === 'tls:' && { tls: {} }),
      ...(user && pass ? { user, pass } : user ? { token: user } : {}),
    })
    try {
      const manager = await connection.jetstreamManager({ timeout: timeoutMs })
      return new NatsPublisher(connection, manager, stream)
    } catch (error) {
      await connection.close().catch(() => undefined)
      throw error
    }
  }

  /**
   * The stream that takes a subject: the one that captures it, whatever the operator named it. A sink given a
   * stream of its own (not the default) publishes there only, and says so when another one captures the subject.
   * When none does, the sink's stream is made (file storage, capturing `linkdesk.>`).
   */
  private streamFor(subject: string): Promise<string> {
    let found = this.streamOf.get(subject)
    if (!found) {
      found = this.findStream(subject)
      this.streamOf.set(subject, found)
      found.catch(() => this.streamOf.delete(subject))
    }
    return found
  }

  private async findStream(subject: string): Promise<string> {
    const capturing = await this.manager.streams.find(subject).catch((error: unknown) => {
      if (/no stream matches subject/i.test((error as Error)?.message ?? '')) return undefined
      throw error
    })
    if (capturing === this.stream || (capturing && this.stream === DEFAULT_STREAM)) return capturing
    if (capturing)
      throw new Error(
        `stream ${this.stream} does not capture ${subject}: stream ${capturing} does (give that stream, or none, to the sink)`,
      )
    const named = await this.manager.streams.info(this.stream).catch((error: unknown) => {
      if (isStreamNotFound(error)) return undefined
      throw error
    })
    if (named)
      throw new Error(
        `stream ${this.stream} does not capture ${subject} (its subjects: ${named.config.subjects?.join(', ') || 'none'}), and no other stream does`,
      )
    try {
      await this.manager.streams.add({
        name: this.stream,
        subjects: [NATS_SUBJECTS],
        storage: StorageType.File,
      })
    } catch (error) {
      throw refusal(
        `no stream captures ${subject}, and stream ${this.stream} (${NATS_SUBJECTS}) cannot be made`,
        error,
      )
    }
    return this.stream
  }

  async publish(events: readonly LinkdeskEvent[], attempt: number, timeoutMs: number): Promise<void> {
    const jetstream = this.connection.jetstream({ timeout: timeoutMs })
    const streams = await Promise.all(events.map((event) => this.streamFor(natsSubject(event))))
    // Published in order on one connection (the stream stores them in that order); each acknowledged by the stream
    // found for it. The event id is the message id: the stream drops a repeat within its duplicate window.
    await Promise.all(
      events.map((event, index) => {
        const headers = natsHeaders()
        headers.set(SINK_HEADERS.event, event.event)
        headers.set(SINK_HEADERS.eventId, event.event_id)
        headers.set(SINK_HEADERS.instanceId, event.instance_id)
        headers.set(SINK_HEADERS.attempt, String(attempt))
        return jetstream.publish(natsSubject(event), JSON.stringify(event), {
          msgID: event.event_id,
          headers,
          timeout: timeoutMs,
          expect: { streamName: streams[index]! },
        })
      }),
    )
  }

  async close(): Promise<void> {
    await this.connection.close().catch(() => undefined)
  }
}

function isStreamNotFound(error: unknown): boolean {
  const { api_error: apiError, message } = (error ?? {}) as {
    api_error?: { err_code?: number }
    message?: string
  }
  return apiError?.err_code === 10059 || /stream not found/i.test(message ?? '')
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
