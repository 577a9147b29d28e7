import type { ApiClient } from './client'
import type {
  DeliveryAttemptView,
  DeliveryPage,
  DeliveryStatusView,
  EventEnvelopeView,
  EventPage,
  LoggedEventView,
  QrUpdateData,
} from './types'

/** Whether the live stream is open, being opened again, or not yet started. */
export type FeedConnection = 'connecting' | 'live' | 'reconnecting'

/** A snapshot for React (useSyncExternalStore): replaced, never mutated, after each batch of changes. */
export interface FeedSnapshot {
  /** Oldest first. */
  events: readonly LoggedEventView[]
  /** Oldest first. */
  deliveries: readonly DeliveryAttemptView[]
  connection: FeedConnection
  /** More events are in the log than loaded; `loadOlder` fetches them. */
  hasOlder: boolean
  /** The last problem loading the log, in words. */
  problem: string | null
}

const PAGE = 500
/** Beyond this, the oldest loaded entries are let go: the log itself keeps them. */
const MAX_KEPT = 200_000
const OUTCOME_STATUS: Record<DeliveryAttemptView['outcome'], DeliveryStatusView> = {
  delivered: 'delivered',
  retrying: 'pending',
  failed: 'failed',
}

/**
 * Every event and delivery attempt the window knows: the newest page of the event log, then the live stream
 * resumed right after it (and after each reconnect, by Last-Event-ID), so nothing falls in between. One feed
 * per window; screens read its snapshot and subscribe to new envelopes.
 */
export class EventFeed {
  private events: LoggedEventView[] = []
  private readonly index = new Map<string, number>()
  private deliveries: DeliveryAttemptView[] = []
  private readonly qr = new Map<string, QrUpdateData>()
  private readonly listeners = new Set<() => void>()
  private readonly envelopeListeners = new Set<(event: EventEnvelopeView) => void>()
  private olderCursor: string | null = null
  private source: EventSource | null = null
  private stopped = false
  private flushTimer: ReturnType<typeof setTimeout> | undefined
  private summaryTimer: ReturnType<typeof setTimeout> | undefined
  private unsummarized = 0
  private current: FeedSnapshot = {
    events: [],
    deliveries: [],
    connection: 'connecting',
    hasOlder: false,
    problem: null,
  }

  constructor(private readonly api: ApiClient) {}

  /** Loads the newest events and attempts, then follows the live stream from there. */
  async start(): Promise<void> {
    let lastId: string | undefined
    try {
      const [page, attempts] = await Promise.all([
        this.api.call<EventPage>('events', { limit: PAGE }),
        this.api.call<DeliveryPage>('deliveries', { limit: PAGE }),
      ])
      this.prependEvents(page.events.slice().reverse(), page.next_cursor)
      this.deliveries = attempts.deliveries.slice().reverse()
      lastId = page.events[0]?.event_id
    } catch (error) {
      this.current = { ...this.current, problem: describe(error) }
    }
    if (!this.stopped) this.open(lastId)
    this.flush()
  }

  stop(): void {
    this.stopped = true
    this.source?.close()
    this.source = null
    clearTimeout(this.flushTimer)
    clearTimeout(this.summaryTimer)
  }

  snapshot = (): FeedSnapshot => this.current

  subscribe = (listener: () => void): (() => void) => {
    this.listeners.add(listener)
    return () => this.listeners.delete(listener)
  }

  /** Called with each event as it arrives live (not with history). */
  onEnvelope(listener: (event: EventEnvelopeView) => void): () => void {
    this.envelopeListeners.add(listener)
    return () => this.envelopeListeners.delete(listener)
  }

  /** The newest QR code of an instance that the feed has seen, with the text it encodes. */
  latestQr(instanceId: string): QrUpdateData | undefined {
    return this.qr.get(instanceId)
  }

  /** Fetches the next older page of the log. */
  async loadOlder(): Promise<void> {
    if (this.olderCursor === null) return
    const page = await this.api.call<EventPage>('events', { limit: PAGE, cursor: this.olderCursor })
    this.prependEvents(page.events.slice().reverse(), page.next_cursor)
    this.flush()
  }

  private open(lastId: string | undefined): void {
    const params: Record<string, string> = { deliveries: 'true' }
    if (lastId) params.last_event_id = lastId
    const source = new EventSource(this.api.streamUrl(params))
    this.source = source
    source.onopen = () => this.setConnection('live')
    source.onerror = () => this.setConnection('reconnecting')
    source.onmessage = (message: MessageEvent<string>) => this.receive(JSON.parse(message.data))
    source.addEventListener('delivery', (message) =>
      this.recordAttempt(JSON.parse((message as MessageEvent<string>).data)),
    )
  }

  private setConnection(connection: FeedConnection): void {
    if (this.current.connection === connection) return
    this.current = { ...this.current, connection }
    this.notify()
  }

  private receive(envelope: EventEnvelopeView): void {
    if (this.index.has(envelope.event_id)) return
    const logged: LoggedEventView = {
      ...envelope,
      delivery: {
        status: 'pending',
        attempts: 0,
        last_attempt_at: null,
        last_status_code: null,
        last_error: null,
      },
    }
    this.index.set(envelope.event_id, this.events.length)
    this.events.push(logged)
    this.rememberQr(logged)
    if (this.events.length > MAX_KEPT) this.trim()
    for (const listener of this.envelopeListeners) listener(envelope)
    this.unsummarized += 1
    this.scheduleSummaries()
    this.schedule()
  }

  /**
   * The stream carries envelopes without their delivery summary (a webhook that is off skips them; attempts
   * come as their own frames): once a burst is over, the log's summaries of the new events are read back.
   */
  private scheduleSummaries(): void {
    if (this.summaryTimer !== undefined) return
    this.summaryTimer = setTimeout(() => {
      this.summaryTimer = undefined
      const limit = Math.min(PAGE, this.unsummarized)
      this.unsummarized = 0
      this.api.call<EventPage>('events', { limit }).then(
        (page) => this.applySummaries(page.events),
        () => undefined,
      )
    }, 1000)
  }

  private applySummaries(logged: LoggedEventView[]): void {
    for (const event of logged) {
      const position = this.index.get(event.event_id)
      const known = position === undefined ? undefined : this.events[position]
      if (position === undefined || !known || known.delivery.attempts > event.delivery.attempts) continue
      this.events[position] = { ...known, delivery: event.delivery }
    }
    this.schedule()
  }

  private recordAttempt(attempt: DeliveryAttemptView): void {
    this.deliveries.push(attempt)
    if (this.deliveries.length > MAX_KEPT) this.deliveries.splice(0, this.deliveries.length - MAX_KEPT)
    const position = this.index.get(attempt.event_id)
    const logged = position === undefined ? undefined : this.events[position]
    if (position !== undefined && logged) {
      this.events[position] = {
        ...logged,
        delivery: {
          status: OUTCOME_STATUS[attempt.outcome],
          attempts: attempt.attempt,
          last_attempt_at: attempt.attempted_at,
          last_status_code: attempt.status_code,
          last_error: attempt.error,
        },
      }
    }
    this.schedule()
  }

  private prependEvents(older: LoggedEventView[], cursor: string | null): void {
    const fresh = older.filter((event) => !this.index.has(event.event_id))
    this.events = [...fresh, ...this.events]
    this.reindex()
    for (const event of fresh) this.rememberQr(event)
    this.olderCursor = cursor
  }

  private rememberQr(event: LoggedEventView): void {
    if (event.event !== 'qr.update') return
    const known = this.qr.get(event.instance_id)
    const data = event.data as unknown as QrUpdateData
    if (!known || known.expires_at <= data.expires_at) this.qr.set(event.instance_id, data)
  }

  private trim(): void {
    this.events.splice(0, this.events.length - MAX_KEPT)
    this.reindex()
    this.olderCursor = this.events[0]?.event_id ?? null
  }

  private reindex(): void {
    this.index.clear()
    this.events.forEach((event, position) => this.index.set(event.event_id, position))
  }

  /** Live items come in bursts: the screens re-render once per burst, not once per item. */
  private schedule(): void {
    if (this.flushTimer !== undefined) return
    this.flushTimer = setTimeout(() => this.flush(), 50)
  }

  private flush(): void {
    clearTimeout(this.flushTimer)
    this.flushTimer = undefined
    this.current = {
      ...this.current,
      events: this.events.slice(),
      deliveries: this.deliveries.slice(),
      hasOlder: this.olderCursor !== null,
    }
    this.notify()
  }

  private notify(): void {
    for (const listener of this.listeners) listener()
  }
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : 'The event log could not be loaded.'
}
