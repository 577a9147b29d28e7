import type { ServerResponse } from 'node:http'
import type { Logger } from '../logger'
import type { DeliveryAttempt, EventFilter, LogPage, StoredEvent } from '../store/event-store'

/**
 * What the live stream carries: each new event with its position in the order the log is read in, and (for
 * those who ask) each delivery attempt.
 */
export type LiveItem =
  | { kind: 'event'; stored: StoredEvent; position: string }
  | { kind: 'delivery'; attempt: DeliveryAttempt; owner: string | null }

/**
 * Where stream clients read the log. Alone, the log is read in id order (ids are made in order by the one
 * writer). In a cluster several nodes write, so ids from different nodes can commit out of order: the log is
 * then read in commit order, behind the oldest transaction still running.
 */
export interface StreamSource {
  /** The position after the event `lastEventId` (the client's resume point), or after the newest event. */
  start(lastEventId: string | undefined): Promise<string>
  /** The events after `position` matching the filter, in order. */
  page(filter: EventFilter, position: string, limit: number): Promise<LogPage>
}

/** The in-process fan-out of new events and attempts to the connected stream clients. */
export class LiveStream {
  private readonly listeners = new Set<(item: LiveItem) => void>()

  /** Adds a listener; returns the function that removes it. */
  subscribe(listener: (item: LiveItem) => void): () => void {
    this.listeners.add(listener)
    return () => this.listeners.delete(listener)
  }

  publish(item: LiveItem): void {
    for (const listener of this.listeners) listener(item)
  }

  get clients(): number {
    return this.listeners.size
  }
}

export interface StreamClientOptions {
  response: ServerResponse
  source: StreamSource
  live: LiveStream
  filter: EventFilter
  /** Send the events after this position (StreamSource.start). */
  after: string
  /** Also send `event: delivery` frames for each attempt. */
  deliveries: boolean
  heartbeatMs: number
  stallTimeoutMs: number
  logger: Logger
}

const REPLAY_PAGE = 200

/**
 * One Server-Sent Events client. Events are written from the durable log while catching up and from the live
 * feed once caught up; when the socket's buffer is full the client stops taking live events and, once the
 * socket drains, catches up from the log again, so a slow reader costs no memory and misses nothing. A client
 * that reads nothing for `stallTimeoutMs` is disconnected (it can resume with Last-Event-ID).
 */
export class EventStreamClient {
  private cursor: string
  private mode: 'replay' | 'live' | 'blocked' | 'closed' = 'replay'
  private readonly unsubscribe: () => void
  private readonly heartbeat: NodeJS.Timeout
  private stallTimer: NodeJS.Timeout | undefined
  /** While catching up: the events published since the catch-up began (the log may not have them yet). */
  private published: Array<{ stored: StoredEvent; position: string }> = []

  constructor(private readonly options: StreamClientOptions) {
    const { response } = options
    response.writeHead(200, {
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-cache, no-transform',
      connection: 'keep-alive',
      'x-accel-buffering': 'no',
    })
    response.write('retry: 2000\n\n')
    this.cursor = options.after
    this.unsubscribe = options.live.subscribe((item) => this.onLive(item))
    this.heartbeat = setInterval(() => {
      if (this.mode === 'live' || this.mode === 'replay') response.write(': heartbeat\n\n')
    }, options.heartbeatMs)
    response.on('close', () => this.close())
    response.on('error', () => this.close())
    this.catchUp()
  }

  /** Ends the stream (server shutdown, client gone or stalled). */
  close(): void {
    if (this.mode === 'closed') return
    this.mode = 'closed'
    this.unsubscribe()
    clearInterval(this.heartbeat)
    clearTimeout(this.stallTimer)
    if (!this.options.response.writableEnded) this.options.response.end()
  }

  private catchUp(): void {
    this.replay().catch((error: unknown) => {
      this.options.logger.error({ err: error }, 'stream replay failed; client disconnected')
      this.close()
    })
  }

  /**
   * Sends what the log holds after the cursor, then what was published meanwhile, and goes live. Every event
   * published before the catch-up began is in the log once the writes made so far commit; every later one
   * is kept as it is published.
   */
  private async replay(): Promise<void> {
    this.published = []
    while (this.mode === 'replay') {
      const page = await this.options.source.page(this.options.filter, this.cursor, REPLAY_PAGE)
      if (this.mode !== 'replay') return
      for (const { stored, position } of page.items) if (!this.send(stored, position)) return
      if (page.position > this.cursor) this.cursor = page.position
      if (!page.done) continue
      const published = this.published
      this.published = []
      this.mode = 'live'
      for (const { stored, position } of published) {
        if (position > this.cursor && this.matches(stored) && !this.send(stored, position)) return
      }
    }
  }

  private onLive(item: LiveItem): void {
    if (this.mode === 'replay' && item.kind === 'event') this.published.push(item)
    if (this.mode !== 'live') return
    if (item.kind === 'delivery') {
      const { attempt, owner } = item
      if (!this.options.deliveries || !this.options.filter.visible(owner)) return
      if (this.options.filter.instanceId && attempt.instance_id !== this.options.filter.instanceId) return
      this.write(`event: delivery\ndata: ${JSON.stringify(attempt)}\n\n`)
      return
    }
    const { stored, position } = item
    if (position <= this.cursor || !this.matches(stored)) return
    this.send(stored, position)
  }

  private matches(stored: StoredEvent): boolean {
    const { filter } = this.options
    if (!filter.visible(stored.owner)) return false
    if (filter.instanceId && stored.envelope.instance_id !== filter.instanceId) return false
    return !filter.event || stored.envelope.event === filter.event
  }

  /** Writes one event; false when the socket is full and the client now waits for it to drain. */
  private send(stored: StoredEvent, position: string): boolean {
    this.cursor = position
    return this.write(`id: ${stored.envelope.event_id}\ndata: ${JSON.stringify(stored.envelope)}\n\n`)
  }

  private write(frame: string): boolean {
    if (this.options.response.write(frame)) return true
    this.mode = 'blocked'
    this.stallTimer = setTimeout(() => {
      this.options.logger.info(
        { stallTimeoutMs: this.options.stallTimeoutMs },
        'stream client stalled; disconnected',
      )
      this.close()
    }, this.options.stallTimeoutMs)
    this.options.response.once('drain', () => {
      clearTimeout(this.stallTimer)
      if (this.mode !== 'blocked') return
      this.mode = 'replay'
      this.catchUp()
    })
    return false
  }
}
