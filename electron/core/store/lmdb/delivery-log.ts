import type { Database, RootDatabase } from 'lmdb'
import type { DeliveryAttempt, DeliveryFilter, Page, PageQuery } from '../event-store'
import { collectPage, idRange } from './log-range'

interface StoredAttempt {
  attempt: DeliveryAttempt
  owner: string | null
}

/** Every delivery attempt, by id (ids sort by time), with indexes by instance and by event. */
export class DeliveryLog {
  private readonly attempts: Database<StoredAttempt, string>
  private readonly index: Database<null, [string, string, string]>

  constructor(root: RootDatabase) {
    this.attempts = root.openDB<StoredAttempt, string>({ name: 'deliveries', encoding: 'msgpack' })
    this.index = root.openDB<null, [string, string, string]>({
      name: 'deliveries-index',
      encoding: 'msgpack',
    })
  }

  /** Stages an attempt and its index entries (inside the store's batch). */
  record(attempt: DeliveryAttempt, owner: string | null): void {
    this.attempts.put(attempt.delivery_id, { attempt, owner })
    this.index.put(['i', attempt.instance_id, attempt.delivery_id], null)
    this.index.put(['e', attempt.event_id, attempt.delivery_id], null)
  }

  /** Every attempt, oldest first, with the owner of its instance. */
  *all(): Generator<StoredAttempt> {
    for (const { value } of this.attempts.getRange({})) yield value
  }

  /** The newest attempt id, if any. */
  lastId(): string | undefined {
    for (const key of this.attempts.getKeys({ reverse: true, limit: 1 })) return key
    return undefined
  }

  /** One page of attempts matching the filter. */
  page(filter: DeliveryFilter, query: PageQuery): Page<DeliveryAttempt> {
    const ids = filter.eventId
      ? this.indexed('e', filter.eventId, query)
      : filter.instanceId
        ? this.indexed('i', filter.instanceId, query)
        : this.attempts.getKeys(idRange(query, (id) => id))
    return collectPage(ids, query.limit, (id) => {
      const stored = this.attempts.get(id)
      if (!stored || !filter.visible(stored.owner)) return undefined
      const { attempt } = stored
      if (filter.instanceId && attempt.instance_id !== filter.instanceId) return undefined
      if (filter.outcome && attempt.outcome !== filter.outcome) return undefined
      // Attempts recorded before added webhooks existed have no webhook_id: the instance's own.
      if (filter.webhookId !== undefined && (attempt.webhook_id ?? null) !== filter.webhookId)
        return undefined
      return { ...attempt, webhook_id: attempt.webhook_id ?? null }
    })
  }

  /** Removes attempts older than `beforeId` and, beyond `maxAttempts`, the oldest ones; resolves to how many. */
  async sweep(beforeId: string, maxAttempts: number): Promise<number> {
    const excess = Math.max(0, this.attempts.getCount() - maxAttempts)
    const doomed: DeliveryAttempt[] = []
    for (const { key, value } of this.attempts.getRange({})) {
      if (key >= beforeId && doomed.length >= excess) break
      doomed.push(value.attempt)
    }
    for (let i = 0; i < doomed.length; i += 1000) {
      const batch = doomed.slice(i, i + 1000)
      await this.attempts.transaction(() => {
        for (const attempt of batch) {
          this.attempts.removeSync(attempt.delivery_id)
          this.index.removeSync(['i', attempt.instance_id, attempt.delivery_id])
          this.index.removeSync(['e', attempt.event_id, attempt.delivery_id])
        }
      })
    }
    return doomed.length
  }

  private *indexed(kind: 'i' | 'e', value: string, query: PageQuery): Iterable<string> {
    for (const key of this.index.getKeys(idRange(query, (id) => [kind, value, id]))) yield key[2]
  }
}
