import type { LinkdeskEvent } from '../contract/events'

/**
 * The exchange a RabbitMQ sink declares by default, and the stream a NATS sink makes when no stream captures its
 * subjects (a sink left at the default publishes into whichever stream does).
 */
export const DEFAULT_EXCHANGE = 'linkdesk'
export const DEFAULT_STREAM = 'LINKDESK'

/** The headers each published message carries (AMQP headers, NATS message headers). */
export const SINK_HEADERS = {
  event: 'x-linkdesk-event',
  eventId: 'x-linkdesk-event-id',
  instanceId: 'x-linkdesk-instance-id',
  attempt: 'x-linkdesk-attempt',
} as const

/** One open connection to a broker, publishing one sink's events. */
export interface Publisher {
  /** Publishes the events in order and resolves once the broker has confirmed every one. */
  publish(events: readonly LinkdeskEvent[], attempt: number, timeoutMs: number): Promise<void>
  /** Whether the connection is gone (the next attempt opens a new one). */
  readonly broken: boolean
  close(): Promise<void>
}

/** An error's text as a broker client gives it, led by its code when the text does not already say it. */
export function describe(error: unknown): string {
  const { code, message } = (error ?? {}) as { code?: unknown; message?: unknown }
  const text = typeof message === 'string' && message ? message : String(error)
  return typeof code === 'string' && !text.includes(code) ? `${code}: ${text}` : text
}

/** A broker's refusal, with what the operator has to change named before the broker's own words. */
export function refusal(cause: string, error: unknown): Error {
  return new Error(`${cause} (${describe(error)})`)
}
