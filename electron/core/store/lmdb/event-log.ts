import type { Database, RootDatabase } from 'lmdb'
import type {
  DeliveryStatus,
  EventDeliveryState,
  EventFilter,
  Page,
  PageQuery,
  StoredEvent,
} from '../event-store'
import { collectPage, idRange } from './log-range'

type LoggedEvent = Omit<StoredEvent, 'delivery'>

/**
 * The durable event log: events by id (ids sort by time), their delivery summaries (kept apart so that an
 * update rewrites a few bytes, not the event) and an index by instance, in LMDB sub-databases of the app's
 * database.
 */
export class EventLog {
  private readonly events: Database<LoggedEvent, string>
  private readonly deliveries: Database<EventDeliveryState, string>
  private readonly byInstance: Database<string, [string, string]>

  constructor(root: RootDatabase) {
    this.events = root.openDB<LoggedEvent, string>({ name: 'events', encoding: 'msgpack' })
    this.deliveries = root.openDB<EventDeliveryState, string>({
      name: 'event-deliveries',
      encoding: 'msgpack',
    })
    this.byInstance = root.openDB<string, [string, string]>({
      name: 'events-by-instance',
      encoding: 'msgpack',
    })
  }

  /** Stages a new event, its delivery summary and its index entry (inside the store's batch). */
  append(stored: StoredEvent): void {
    const { event_id: id, instance_id: instanceId, event } = stored.envelope
    this.events.put(id, { envelope: stored.envelope, owner: stored.owner })
    this.deliveries.put(id, stored.delivery)
    this.byInstance.put([instanceId, id], event)
  }

  get(id: string): StoredEvent | undefined {
    const logged = this.events.get(id)
    const delivery = this.deliveries.get(id)
    return logged && delivery ? { ...logged, delivery } : undefined
  }

  /** Stages a new delivery summary of an event (a crash may lose it, never the event). */
  setDelivery(id: string, delivery: EventDeliveryState): void {
    this.deliveries.put(id, delivery)
  }

  /** Every event, oldest first. */
  *all(): Generator<StoredEvent> {
    for (const id of this.events.getKeys({})) {
      const stored = this.get(id)
      if (stored) yield stored
    }
  }

  /** The newest event id, if any. */
  lastId(): string | undefined {
    for (const key of this.events.getKeys({ reverse: true, limit: 1 })) return key
    return undefined
  }

  /** One page of events matching the filter, newest or oldest first. */
  page(filter: EventFilter, query: PageQuery): Page<StoredEvent> {
    const ids = filter.instanceId
      ? this.instanceIds(filter.instanceId, query)
      : this.events.getKeys(idRange(query, (id) => id))
    return collectPage(ids, query.limit, (id) => this.matching(id, filter))
  }

  /** Ids of one instance's events with the given delivery status, oldest first. */
  idsWithStatus(instanceId: string, status: DeliveryStatus): string[] {
    const found: string[] = []
    for (const id of this.instanceIds(instanceId, { limit: 0, order: 'asc' })) {
      if (this.deliveries.get(id)?.status === status) found.push(id)
    }
    return found
  }

  /**
   * Removes events older than `beforeId` and, beyond `maxEvents`, the oldest ones; events still waiting for
   * delivery are kept. Resolves to the number removed.
   */
  async sweep(beforeId: string, maxEvents: number): Promise<number> {
    const excess = Math.max(0, this.events.getCount() - maxEvents)
    const doomed: Array<[string, string]> = []
    for (const { key, value } of this.events.getRange({})) {
      if (key >= beforeId && doomed.length >= excess) break
      if (this.deliveries.get(key)?.status !== 'pending') doomed.push([value.envelope.instance_id, key])
    }
    for (let i = 0; i < doomed.length; i += 1000) {
      const batch = doomed.slice(i, i + 1000)
      await this.events.transaction(() => {
        for (const [instanceId, id] of batch) {
          this.events.removeSync(id)
          this.deliveries.removeSync(id)
          this.byInstance.removeSync([instanceId, id])
        }
      })
    }
    return doomed.length
  }

  private *instanceIds(instanceId: string, query: PageQuery): Iterable<string> {
    for (const key of this.byInstance.getKeys(idRange(query, (id) => [instanceId, id]))) yield key[1]
  }

  private matching(id: string, filter: EventFilter): StoredEvent | undefined {
    const stored = this.get(id)
    if (!stored || !filter.visible(stored.owner)) return undefined
    if (filter.event && stored.envelope.event !== filter.event) return undefined
    return stored
  }
}
