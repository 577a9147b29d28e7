import type { EventStore, OutboxEntry, QueuedEntry, StoredEvent } from '../store/event-store'

/** The commit of a just-emitted event on a store without a journal: its outcome, once known. */
export interface FreshCommit {
  done: boolean
  ok: boolean
  settled: Promise<void>
}

/** An entry just emitted, handed over with its event (and, without a journal, its commit). */
export interface FreshEntry {
  entry: OutboxEntry
  stored: StoredEvent
  commit?: FreshCommit
}

/**
 * A queued entry: just its id when it is read from the outbox, or with its entry and event when just emitted
 * (and, without a journal, its commit: it is durable, and posted, only once that succeeded).
 */
interface Queued {
  queueId: string
  fresh?: FreshEntry
}

/** The entry being delivered, and its event when it came fresh from emit. */
export type Head = QueuedEntry & { stored?: StoredEvent }

/** Queue ids kept in memory per instance by default; beyond, the rest waits in the outbox, read in pages. */
export const MEMORY_QUEUE = 5_000

/** What a queue reads: the outbox, the writes not yet committed, and when to stop. */
export interface DeliveryQueueDeps {
  store: Pick<EventStore, 'queued' | 'queuedAfter'>
  /** While the write of this queue id (or, without one, any write) is not committed, a promise of its commit. */
  uncommitted(queueId?: string): Promise<void> | undefined
  stop: AbortSignal
  /** The queue had entries waiting at start (left by the last run): they are read from the outbox first. */
  resumed?: boolean
  /** Queue ids kept in memory (default MEMORY_QUEUE). */
  memoryQueue?: number
}

/**
 * One delivery queue's entries still to deliver, in order: up to memoryQueue ids in memory, the rest left in the
 * outbox and read back in pages once the memory queue runs dry.
 */
export class DeliveryQueue {
  private readonly queue: Queued[] = []
  /** Whether the outbox holds entries past the memory queue (more than memoryQueue were waiting). */
  private overflow: boolean
  private lastLoaded = ''
  /** Entries queued while in overflow (left in the outbox); a refill that overlaps one must read again. */
  private overflowed = 0
  private readonly memoryQueue: number

  constructor(
    private readonly instanceId: string,
    private readonly deps: DeliveryQueueDeps,
  ) {
    this.memoryQueue = deps.memoryQueue ?? MEMORY_QUEUE
    // A queue resumed at start is read from the outbox first; one started by this run gets all its entries.
    this.overflow = deps.resumed ?? false
  }

  /** Whether entries wait to be delivered (in memory, or in the outbox past it). */
  get waiting(): boolean {
    return this.queue.length > 0 || this.overflow
  }

  /** Takes a newly queued entry: kept in memory while there is room and nothing waits in the outbox before it. */
  enqueue(queueId: string, fresh?: FreshEntry): void {
    if (!this.overflow && this.queue.length < this.memoryQueue) {
      this.queue.push({ queueId, fresh })
      this.lastLoaded = queueId
    } else {
      this.overflow = true
      this.overflowed += 1
    }
  }

  /** The next entry: as emitted, or read from the outbox once its write is committed. */
  async next(): Promise<Head | undefined> {
    for (;;) {
      while (this.queue.length === 0 && this.overflow) await this.refill()
      const queued = this.queue[0]
      if (queued === undefined || this.deps.stop.aborted) return undefined
      const { queueId, fresh } = queued
      if (fresh) {
        await fresh.commit?.settled
        this.queue.shift()
        // An event whose commit failed was never stored: there is nothing to post.
        if (fresh.commit && !fresh.commit.ok) continue
        return { queueId, entry: { ...fresh.entry }, stored: fresh.stored }
      }
      await this.deps.uncommitted(queueId)
      this.queue.shift()
      const entry = await this.deps.store.queued(this.instanceId, queueId)
      if (entry) return { queueId, entry: { ...entry } }
    }
  }

  /**
   * Adds to a first attempt the entries waiting behind it that are ready now (emitted, or committed), up to
   * the webhook's batch size; a batch being retried keeps its entries, so each retry sends the same events.
   */
  async fill(batch: Head[], batchSize: number): Promise<void> {
    if (batch.some(({ entry }) => entry.attempts > 0)) return
    while (batch.length < batchSize && !this.deps.stop.aborted) {
      const queued = this.queue[0]
      if (queued === undefined) return
      const { queueId, fresh } = queued
      if (fresh) {
        if (fresh.commit && !fresh.commit.done) return
        this.queue.shift()
        if (!fresh.commit || fresh.commit.ok)
          batch.push({ queueId, entry: { ...fresh.entry }, stored: fresh.stored })
        continue
      }
      if (this.deps.uncommitted(queueId)) return
      this.queue.shift()
      const entry = await this.deps.store.queued(this.instanceId, queueId)
      if (entry) batch.push({ queueId, entry: { ...entry } })
    }
  }

  /** Puts entries taken from a batch back at the front of the queue, in order, with their retry state. */
  putBack(heads: readonly Head[]): void {
    this.queue.unshift(
      ...heads.map(({ queueId, entry, stored }) => ({
        queueId,
        ...(stored ? { fresh: { entry, stored } } : {}),
      })),
    )
  }

  private async refill(): Promise<void> {
    // Entries queued in overflow are only in the store: read once they are committed, and read again if more
    // came while waiting (they may not be committed yet).
    const overflowed = this.overflowed
    await this.deps.uncommitted()
    this.overflow = (await this.load()) === this.memoryQueue || this.overflowed !== overflowed
  }

  /** Reads the next page of committed entries into the memory queue; returns how many. */
  private async load(): Promise<number> {
    const page = await this.deps.store.queuedAfter(this.instanceId, this.lastLoaded, this.memoryQueue)
    for (const { queueId } of page) this.queue.push({ queueId })
    const last = page.at(-1)
    if (last) this.lastLoaded = last.queueId
    return page.length
  }
}
