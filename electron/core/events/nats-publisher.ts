import {
  connect as natsConnect,
  headers as natsHeaders,
  StorageType,
  type JetStreamManager,
  type NatsConnection,
} from 'nats'
import type { LinkdeskEvent } from '../contract/events'
import { DEFAULT_STREAM, refusal, SINK_HEADERS, type Publisher } from './sink-publisher'

/** The subjects a stream made by Linkdesk captures. */
export const NATS_SUBJECTS = 'linkdesk.>'

/** The NATS subject of an event: `linkdesk.<instance>.<event>`. */
export function natsSubject(event: LinkdeskEvent): string {
  return `linkdesk.${event.instance_id}.${event.event}`
}

/** A NATS sink's connection: JetStream publishes, each acknowledged by the stream that captures its subject. */
export class NatsPublisher implements Publisher {
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
