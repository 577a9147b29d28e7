import type { DeliveryAttempt, DeliveryFilter } from './delivery-log'
import type { DeliveryStatus, EventDeliveryState, EventFilter, StoredEvent } from './event-log'
import type { Page, PageQuery } from './log-range'
import type { OutboxEntry, QueuedEntry } from './webhook-outbox'

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
  commit(writes: readonly EventWrite[]): Promise<void>
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
  /** One page of delivery attempts matching the filter. */
  deliveries(filter: DeliveryFilter, query: PageQuery): Promise<Page<DeliveryAttempt>>
  queued(queue: string, queueId: string): Promise<OutboxEntry | undefined>
  /** Up to `limit` entries of one queue after `afterQueueId` (empty: from the start), in queue order. */
  queuedAfter(queue: string, afterQueueId: string, limit: number): Promise<QueuedEntry[]>
  /** The queues that have entries waiting. */
  queues(): Promise<string[]>
  /** Entries waiting, all queues together. */
  queueDepth(): Promise<number>
  /**
   * Removes events (not those waiting for delivery), attempts and message ids older than `beforeId`, and beyond
   * the maxima the oldest events and attempts.
   */
  sweep(beforeId: string, max: { events: number; deliveries: number }): Promise<SweepCount>
}
