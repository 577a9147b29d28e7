import { unhandledCase } from '../../exhaustive'
import type { CommitOptions, EventStore, EventWrite } from '../event-store'
import type { RootDatabase } from './database'
import { DeferredWrites } from './deferred-writes'
import { DeliveryLog } from './delivery-log'
import { EventLog } from './event-log'
import { MessageEventIndex } from './message-event-index'
import { WebhookOutbox } from './webhook-outbox'
import { queueParts } from '../outbox-queue'

/**
 * The event store in the app's embedded LMDB database: each part a sub-database, each commit one LMDB batch
 * (written on LMDB's own thread; batches made in the same tick share one transaction). A deferrable commit
 * (what the journal already holds, a delivery's outcome) rides in the next transaction made for another write.
 */
export class LmdbEventStore implements EventStore {
  private readonly log: EventLog
  private readonly attempts: DeliveryLog
  private readonly outbox: WebhookOutbox
  private readonly messages: MessageEventIndex

  /** The one node marks its posts under way in a local file (PostsInFlight), not in the store. */
  readonly markPosting = undefined

  private readonly deferred: DeferredWrites

  /** `deferMs`: how long a deferrable commit waits for another write to ride with before it goes alone. */
  constructor(
    private readonly db: RootDatabase,
    deferMs = 0,
  ) {
    this.deferred = new DeferredWrites(db, deferMs)
    this.log = new EventLog(db)
    this.attempts = new DeliveryLog(db)
    this.outbox = new WebhookOutbox(db)
    this.messages = new MessageEventIndex(db)
  }

  async commit(writes: readonly EventWrite[], options: CommitOptions = {}): Promise<void> {
    const stage = () => {
      for (const write of writes) this.stage(write)
    }
    if (options.deferrable) return this.deferred.defer(stage)
    // What was deferred before goes first: writes keep the order they were made in.
    this.deferred.flush()
    await this.db.batch(stage)
  }

  flush(): void {
    this.deferred.flush()
  }

  async event(id: string) {
    return this.log.get(id)
  }

  async existing(ids: readonly string[]) {
    return new Set(ids.filter((id) => this.log.get(id) !== undefined))
  }

  async events(...args: Parameters<EventStore['events']>) {
    return this.log.page(...args)
  }

  async idsWithStatus(...args: Parameters<EventStore['idsWithStatus']>) {
    return this.log.idsWithStatus(...args)
  }

  async lastId() {
    const ids = [this.log.lastId(), this.attempts.lastId()].filter((id) => id !== undefined).sort()
    return ids.at(-1)
  }

  async lastEventId() {
    return this.log.lastId()
  }

  async eventOfMessage(instanceId: string, messageId: string) {
    return this.messages.eventOf(instanceId, messageId)
  }

  async deliveries(...args: Parameters<EventStore['deliveries']>) {
    return this.attempts.page(...args)
  }

  async queued(queue: string, queueId: string) {
    return this.outbox.get(queue, queueId)
  }

  async queuedAfter(queue: string, afterQueueId: string, limit: number) {
    return this.outbox.after(queue, afterQueueId, limit)
  }

  async queues(instanceId?: string) {
    const queues = this.outbox.queues()
    return instanceId === undefined
      ? queues
      : queues.filter((queue) => queueParts(queue).instanceId === instanceId)
  }

  async queueDepth(instanceId?: string) {
    if (instanceId === undefined) return this.outbox.depth
    let depth = 0
    for (const queue of await this.queues(instanceId)) depth += this.outbox.after(queue, '', Infinity).length
    return depth
  }

  async sweep(beforeId: string, max: { events: number; deliveries: number }) {
    const events = await this.log.sweep(beforeId, max.events)
    const deliveries = await this.attempts.sweep(beforeId, max.deliveries)
    await this.messages.sweep(beforeId)
    return { events, deliveries }
  }

  /**
   * Everything stored, as the writes that would store it again: each event (with the message it announced),
   * each delivery attempt, each outbox entry (for copying the store elsewhere).
   */
  *export(): Generator<EventWrite> {
    const announced = new Map<string, string>()
    for (const { messageId, eventId } of this.messages.all()) announced.set(eventId, messageId)
    for (const stored of this.log.all()) {
      const messageId = announced.get(stored.envelope.event_id)
      yield { kind: 'event', stored, ...(messageId !== undefined && { messageId }) }
    }
    for (const { attempt, owner } of this.attempts.all()) yield { kind: 'attempt', attempt, owner }
    for (const { queue, queueId, entry } of this.outbox.all())
      yield { kind: 'enqueue', queue, queueId, entry }
  }

  private stage(write: EventWrite): void {
    switch (write.kind) {
      case 'event':
        this.log.append(write.stored)
        if (write.messageId !== undefined)
          this.messages.add(
            write.stored.envelope.instance_id,
            write.messageId,
            write.stored.envelope.event_id,
          )
        return
      case 'delivery':
        return this.log.setDelivery(write.eventId, write.delivery)
      case 'enqueue':
      case 'retry':
        return this.outbox.put(write.queue, write.queueId, write.entry)
      case 'dequeue':
        return this.outbox.remove(write.queue, write.queueId)
      case 'attempt':
        return this.attempts.record(write.attempt, write.owner)
      default:
        unhandledCase(write, 'event write')
    }
  }
}
