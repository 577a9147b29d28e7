import type { SinkSpec } from './settings-store'
import type { EventName } from '../contract/event-catalogue'
import type { LinkdeskEvent } from '../contract/events'

/** Where an event stands with its webhook: waiting or retrying, delivered, given up, or not sent (webhook off). */
export type DeliveryStatus = 'pending' | 'delivered' | 'failed' | 'skipped'

/** The delivery summary kept with each event, as the API shows it. */
export interface EventDeliveryState {
  status: DeliveryStatus
  /** Attempts of the latest delivery (a redelivery starts again from 1). */
  attempts: number
  /** ISO 8601 time of the last attempt, if any. */
  last_attempt_at: string | null
  last_status_code: number | null
  last_error: string | null
}

/** An event as stored: its envelope, the token that owns its instance (null: operator only), its delivery. */
export interface StoredEvent {
  envelope: LinkdeskEvent
  owner: string | null
  delivery: EventDeliveryState
}

export interface EventFilter {
  instanceId?: string
  event?: EventName
  /** Whether the caller may see an event of this owner. */
  visible: (owner: string | null) => boolean
}

/** What one attempt led to: delivered, another attempt later, or given up (not retried, or out of attempts). */
export type AttemptOutcome = 'delivered' | 'retrying' | 'failed'

export const ATTEMPT_OUTCOMES: readonly AttemptOutcome[] = ['delivered', 'retrying', 'failed']

/** One webhook delivery attempt, as the API shows it. */
export interface DeliveryAttempt {
  delivery_id: string
  event_id: string
  instance_id: string
  /** The added webhook it went to (add_webhook); null: the instance's own (set_webhook). */
  webhook_id: string | null
  event: EventName
  /** 1 for the first attempt of a delivery (a redelivery starts again at 1). */
  attempt: number
  /** ISO 8601 time the attempt started. */
  attempted_at: string
  url: string
  /** The receiver's HTTP status, null when no answer came (network error, timeout). */
  status_code: number | null
  latency_ms: number
  outcome: AttemptOutcome
  error: string | null
}

export interface DeliveryFilter {
  instanceId?: string
  eventId?: string
  /** An added webhook's id; `null`: only the instance's own webhook; absent: any. */
  webhookId?: string | null
  outcome?: AttemptOutcome
  visible: (owner: string | null) => boolean
}

/** Where to deliver when the instance's record is gone (destroyed): the webhook as it was at emit time. */
export interface WebhookTarget {
  url: string
  secret: string
  /** Events one POST may carry (the webhook takes batches above 1); absent: one per POST. */
  batchSize?: number
  /** A broker sink: its events are published there (to `url`, the broker's address) instead of POSTed. */
  sink?: SinkSpec
}

/** An event waiting for delivery to its instance's webhook, with its retry state. */
export interface OutboxEntry {
  eventId: string
  /** Unix milliseconds the entry was queued (emit or redeliver); the max age counts from here. */
  enqueuedAt: number
  /** Attempts made so far. */
  attempts: number
  /** Unix milliseconds before which no attempt is made. */
  nextAttemptAt: number
  fallback: WebhookTarget
}

/** A queued entry and its place in its instance's queue. */
export interface QueuedEntry {
  queueId: string
  entry: OutboxEntry
}

/** One page of a time-ordered log: which ids, in which direction, from where. */
export interface PageQuery {
  /** Unix seconds, inclusive. */
  since?: number
  /** Unix seconds, inclusive. */
  until?: number
  /** The last id of the previous page; the page starts after it. */
  cursor?: string
  limit: number
  order: 'asc' | 'desc'
}

/** A page of results and the cursor of the next one (null at the end). */
export interface Page<T> {
  items: T[]
  nextCursor: string | null
}

/** Longest scan behind one page, so that a rare filter cannot make one request read the whole log. */
export const SCAN_LIMIT = 20_000

/**
 * One change to the event store, as data, so that any store can commit several together in one transaction:
 * a new event (and the network message it announces), a new delivery summary, an outbox entry queued or
 * its retry state saved, an entry leaving its queue, a delivery attempt.
 */
export type EventWrite =
  | { kind: 'event'; stored: StoredEvent; messageId?: string }
  | { kind: 'delivery'; instanceId: string; eventId: string; delivery: EventDeliveryState }
  | { kind: 'enqueue'; queue: string; queueId: string; entry: OutboxEntry }
  | { kind: 'retry'; queue: string; queueId: string; entry: OutboxEntry }
  | { kind: 'dequeue'; queue: string; queueId: string }
  | { kind: 'attempt'; attempt: DeliveryAttempt; owner: string | null }

/** How a commit may be made. */
export interface CommitOptions {
  /**
   * Nobody outside waits for this commit (the journal holds the event, or it records a delivery's outcome):
   * the store may keep it back to share a later transaction.
   */
  deferrable?: boolean
}

/** What a retention sweep removed. */
export interface SweepCount {
  events: number
  deliveries: number
}

/**
 * Everything the events part keeps: the event log with each event's delivery summary, the webhook outbox
 * (one ordered queue per instance's webhook and per added webhook), the delivery attempts and which event
 * announced each network message. Embedded (LMDB) or shared (PostgreSQL); every read and write is async.
 */
export interface EventStore {
  /** Commits the writes together, in order, in one transaction: all of them or, on a rejection, none. */
  commit(writes: readonly EventWrite[], options?: CommitOptions): Promise<void>
  /** Commits now what deferrable commits kept back (a reader is about to read the store). */
  flush?(): void
  event(id: string): Promise<StoredEvent | undefined>
  /** Which of these event ids are stored. */
  existing(ids: readonly string[]): Promise<Set<string>>
  /** One page of events matching the filter, newest or oldest first. */
  events(filter: EventFilter, query: PageQuery): Promise<Page<StoredEvent>>
  /** Ids of one instance's events with the given delivery status, oldest first. */
  idsWithStatus(instanceId: string, status: DeliveryStatus): Promise<string[]>
  /** The newest event or delivery attempt id (new ids must sort after it). */
  lastId(): Promise<string | undefined>
  /** The newest event id. */
  lastEventId(): Promise<string | undefined>
  /** The event id that announced this network message, if any. */
  eventOfMessage(instanceId: string, messageId: string): Promise<string | undefined>
  /**
   * Whether the commit of an event claims its network message id itself (true on PostgreSQL): a message id
   * already claimed fails that event's commit alone with MessageAlreadyAnnounced, writing none of its writes,
   * so no lookup round trip comes before it. Without it (LMDB), the id is looked up before the event is made.
   */
  readonly claimsInCommit?: boolean
  /** One page of delivery attempts matching the filter. */
  deliveries(filter: DeliveryFilter, query: PageQuery): Promise<Page<DeliveryAttempt>>
  queued(queue: string, queueId: string): Promise<OutboxEntry | undefined>
  /** Up to `limit` entries of one queue after `afterQueueId` (empty: from the start), in queue order. */
  queuedAfter(queue: string, afterQueueId: string, limit: number): Promise<QueuedEntry[]>
  /** The queues that have entries waiting: all of them, or those holding one instance's events. */
  queues(instanceId?: string): Promise<string[]>
  /** Entries waiting, all queues together, or in one instance's queues. */
  queueDepth(instanceId?: string): Promise<number>
  /**
   * Marks the posts of these entries of a queue as under way, right before the POST (behind the fence), and
   * answers the entries whose previous post was still under way when its node stopped: re-posts, whichever
   * node made the first. Saving an entry's retry clears its mark; its removal takes it along. Undefined on a
   * store that keeps no marks (LMDB: the one node keeps them in a local file).
   */
  readonly markPosting: ((queue: string, queueIds: readonly string[]) => Promise<Set<string>>) | undefined
  /**
   * Removes events (not those waiting for delivery), attempts and message ids older than `beforeId`, and beyond
   * the maxima the oldest events and attempts.
   */
  sweep(beforeId: string, max: { events: number; deliveries: number }): Promise<SweepCount>
}

/** The refusal of a commit whose event announces a network message another event announced already. */
export class MessageAlreadyAnnounced extends Error {
  constructor(readonly messageId: string) {
    super(`message ${messageId} was announced already`)
    this.name = 'MessageAlreadyAnnounced'
  }
}

/** Events read from the log, each with its position (positions sort in the order the log is read in). */
export interface LogPage {
  items: Array<{ stored: StoredEvent; position: string }>
  /** Where the next read starts. */
  position: string
  /** Whether the log has nothing more after `position` now. */
  done: boolean
}

/** A log several nodes write, read in commit order (the PostgreSQL event store). */
export interface SharedLog {
  follow(filter: Partial<EventFilter>, position: string, limit: number): Promise<LogPage>
  positionOf(eventId?: string): Promise<string>
}
