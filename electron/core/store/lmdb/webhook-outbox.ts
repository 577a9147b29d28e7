import type { Database, RootDatabase } from 'lmdb'
import { ID_MAX } from '../../contract/event-id'
import type { OutboxEntry, QueuedEntry } from '../event-store'

/**
 * The webhook outbox in LMDB: one ordered queue per webhook, keyed `[queue, queueId]`. An entry is written with
 * its event and removed once the event is delivered, failed or skipped, so after a crash or a restart every
 * entry still here is delivered.
 */
export class WebhookOutbox {
  private readonly entries: Database<OutboxEntry, [string, string]>

  constructor(root: RootDatabase) {
    this.entries = root.openDB<OutboxEntry, [string, string]>({ name: 'webhook-outbox', encoding: 'msgpack' })
  }

  get depth(): number {
    return this.entries.getCount()
  }

  /** Stages an entry, new or with its retry state (inside the store's batch). */
  put(queue: string, queueId: string, entry: OutboxEntry): void {
    this.entries.put([queue, queueId], entry)
  }

  /** Stages the removal of a finished entry (after a crash before the commit it is delivered again, never lost). */
  remove(queue: string, queueId: string): void {
    this.entries.remove([queue, queueId])
  }

  get(queue: string, queueId: string): OutboxEntry | undefined {
    return this.entries.get([queue, queueId])
  }

  /** Up to `limit` entries of one queue after `afterQueueId`, in order. */
  after(queue: string, afterQueueId: string, limit: number): QueuedEntry[] {
    const range = this.entries.getRange({
      start: [queue, afterQueueId],
      end: [queue, ID_MAX],
      exclusiveStart: true,
      limit,
    })
    return [...range].map(({ key, value }) => ({ queueId: key[1], entry: value }))
  }

  /** Every entry, queue by queue, in order. */
  *all(): Generator<{ queue: string; queueId: string; entry: OutboxEntry }> {
    for (const { key, value } of this.entries.getRange({}))
      yield { queue: key[0], queueId: key[1], entry: value }
  }

  /** The queues that have entries waiting. */
  queues(): string[] {
    const found: string[] = []
    let start: [string, string] | undefined
    for (;;) {
      const [key] = [...this.entries.getKeys({ start, limit: 1 })]
      if (!key) return found
      found.push(key[0])
      start = [key[0], ID_MAX]
    }
  }
}
