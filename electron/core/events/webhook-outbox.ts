import type { Database, RootDatabase } from 'lmdb'
import type { WriteBatch } from '../store/write-batch'
import { ID_MAX } from './event-id'

/** Where to deliver when the instance's record is gone (destroyed): the webhook as it was at emit time. */
export interface WebhookTarget {
  url: string
  secret: string
  /** Events one POST may carry (the webhook takes batches above 1); absent: one per POST. */
  batchSize?: number
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

/**
 * The webhook outbox: one ordered queue per instance, keyed `[instanceId, queueId]` in an LMDB
 * sub-database. An entry is written with its event (journal first, see EventJournal) and removed once the
 * event is delivered, failed or skipped, so after a crash or a restart every entry still here is delivered.
 */
export class WebhookOutbox {
  private readonly entries: Database<OutboxEntry, [string, string]>
  private count: number

  constructor(root: RootDatabase) {
    this.entries = root.openDB<OutboxEntry, [string, string]>({ name: 'webhook-outbox', encoding: 'msgpack' })
    this.count = this.entries.getCount()
  }

  /** Entries waiting, all instances together. */
  get depth(): number {
    return this.count
  }

  /** Stages a new entry in the caller's batch (with the event it belongs to). */
  add(_batch: WriteBatch, instanceId: string, queueId: string, entry: OutboxEntry): void {
    this.count += 1
    this.entries.put([instanceId, queueId], entry)
  }

  /** Queues an entry inside a synchronous transaction (journal recovery at start). */
  addSync(instanceId: string, queueId: string, entry: OutboxEntry): void {
    this.count += 1
    this.entries.putSync([instanceId, queueId], entry)
  }

  get(instanceId: string, queueId: string): OutboxEntry | undefined {
    return this.entries.get([instanceId, queueId])
  }

  /** Stages an entry's retry state in the caller's batch. */
  save(_batch: WriteBatch, instanceId: string, queueId: string, entry: OutboxEntry): void {
    this.entries.put([instanceId, queueId], entry)
  }

  /** Stages the removal of a finished entry (after a crash before the commit it is delivered again, never lost). */
  remove(_batch: WriteBatch, instanceId: string, queueId: string): void {
    this.count = Math.max(0, this.count - 1)
    this.entries.remove([instanceId, queueId])
  }

  /** Up to `limit` entries of one instance queued after `afterQueueId`, in order. */
  after(instanceId: string, afterQueueId: string, limit: number): QueuedEntry[] {
    const range = this.entries.getRange({
      start: [instanceId, afterQueueId],
      end: [instanceId, ID_MAX],
      exclusiveStart: true,
      limit,
    })
    return [...range].map(({ key, value }) => ({ queueId: key[1], entry: value }))
  }

  /** The instances that have entries waiting. */
  instances(): string[] {
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
