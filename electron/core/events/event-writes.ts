import type { Logger } from '../logger'
import type { InstanceRecord } from '../store/settings-store'
import {
  type CommitOptions,
  type EventStore,
  type EventWrite,
  MessageAlreadyAnnounced,
  type OutboxEntry,
  type WebhookTarget,
} from '../store/event-store'
import type { EventJournal, JournalRecord } from './event-journal'

/**
 * The event log's writes to its store, tracked: what the outbox holds (counted as writes are made), which ids
 * are committed (`settled`, `uncommitted`), and the journal kept or cleared as commits succeed or fail.
 */
export class EventWrites {
  private pendingWrites = 0
  private lastWrite: Promise<unknown> = Promise.resolve()
  /** Writes resolve in the order they were made; ids up to this one are committed. */
  private committedId = ''
  /** Outbox entries waiting, all queues together (counted as writes are made). */
  private depth: number

  constructor(
    private readonly store: EventStore,
    private readonly journal: EventJournal | undefined,
    private readonly log: Logger,
    depth: number,
  ) {
    this.depth = depth
  }

  /** Entries waiting in the outbox, all queues together. */
  get outboxDepth(): number {
    return this.depth
  }

  /** The promise of every write made so far (the journal rotates behind it). */
  get last(): Promise<unknown> {
    return this.lastWrite
  }

  /** Resolves once every write made so far is committed to the store (reads then see it). */
  async settled(): Promise<void> {
    this.store.flush?.()
    await this.lastWrite
  }

  /**
   * While the write of `id` (an event or queue id), or without one any write, is not committed to the store,
   * a promise of the commit; otherwise undefined.
   */
  uncommitted(id?: string): Promise<void> | undefined {
    if (this.pendingWrites === 0 || (id !== undefined && id <= this.committedId)) return undefined
    return this.settled()
  }

  /** Commits writes to the store, counting the outbox, and tracks the commit (`settled`, `uncommitted`). */
  write(writes: EventWrite[], id?: string, options?: CommitOptions): Promise<void> {
    this.countQueued(writes)
    const written = this.store.commit(writes, options)
    written.catch((error: unknown) => {
      // A refused commit wrote nothing (without a journal, nothing writes it later either).
      if (error instanceof MessageAlreadyAnnounced || !this.journal) this.countQueued(writes, -1)
    })
    this.track(written, id)
    return written
  }

  /** Counts the entries these writes queue and remove (`undo` -1: a refused commit queued and removed nothing). */
  countQueued(writes: readonly EventWrite[], undo: 1 | -1 = 1): void {
    for (const write of writes) {
      if (write.kind === 'enqueue') this.depth += undo
      else if (write.kind === 'dequeue') this.depth -= undo
    }
  }

  /** Counts entries that start or stop being this node's to deliver (an instance taken over or let go). */
  adjustDepth(entries: number): void {
    this.depth += entries
  }

  private track(write: Promise<unknown>, id?: string): void {
    this.pendingWrites += 1
    this.lastWrite = write.then(
      () => this.written(id),
      (error: unknown) => {
        if (error instanceof MessageAlreadyAnnounced) {
          // A copy of a message announced before: its commit wrote nothing, and nothing is lost.
          this.written(id)
          return
        }
        // The journal still holds what did not commit: it is kept from now on, and the next start writes it.
        this.journal?.keep()
        this.written(id)
        this.log.error(
          { err: error },
          this.journal ? 'event log write failed; the events stay in the journal' : 'event log write failed',
        )
      },
    )
  }

  private written(id: string | undefined): void {
    if (id !== undefined && id > this.committedId) this.committedId = id
    this.pendingWrites -= 1
    if (this.pendingWrites === 0) this.journal?.clear()
  }
}

/** The webhook of an instance record if it is on and has a URL. */
export function activeWebhook(record: InstanceRecord): WebhookTarget | undefined {
  const { url, enable, secret, batchSize } = record.webhook
  return enable && url ? { url, secret, ...(batchSize !== undefined && { batchSize }) } : undefined
}

/** The writes of one emitted event: the event (with its message id), and its outbox entries. */
export function writesOf({ stored, outbox, extra, messageId }: JournalRecord): EventWrite[] {
  const instanceId = stored.envelope.instance_id
  return [
    { kind: 'event', stored, ...(messageId !== undefined && { messageId }) },
    ...(outbox
      ? [{ kind: 'enqueue' as const, queue: instanceId, queueId: stored.envelope.event_id, entry: outbox }]
      : []),
    ...(extra ?? []).map(({ queue, queueId, entry }) => ({
      kind: 'enqueue' as const,
      queue,
      queueId,
      entry,
    })),
  ]
}

export function outboxEntry(eventId: string, now: number, { url, secret }: WebhookTarget): OutboxEntry {
  return { eventId, enqueuedAt: now, attempts: 0, nextAttemptAt: 0, fallback: { url, secret } }
}
