import type { Logger } from '../logger'
import type {
  AttemptOutcome,
  DeliveryAttempt,
  StoredEvent,
  EventStore,
  EventWrite,
  OutboxEntry,
  QueuedEntry,
  WebhookTarget,
} from '../store/event-store'
import type { WebhookSettings } from '../contract/event-settings'
import { retryDelayMs, type AttemptResult } from './webhook-delivery'
import type { PostOnce } from './delivery-threads'
import type { LinkdeskEvent } from '../contract/events'
import { redactUrl, type SinkKind } from './broker-sinks'

/** What a worker needs: the stores, the settings, where to deliver now, and the clock and network. */
export interface WorkerDeps {
  store: Pick<EventStore, 'event' | 'queued' | 'queuedAfter'>
  settings: WebhookSettings
  /**
   * Commits the writes together; resolves once committed or failed (a failure is reported there, and the
   * entries then stay queued).
   */
  write(what: string, writes: EventWrite[]): Promise<void>
  /** The posts under way (shared by every worker), to count re-posts after a kill or a failover. */
  posts: PostMarks
  /** A post repeats one that was under way when the previous run stopped (the receiver may have it). */
  onRepost(): void
  /** While the write of this queue id (or, without one, any write) is not committed, a promise of its commit. */
  uncommitted(queueId?: string): Promise<void> | undefined
  /** The instance's webhook now (its record), the fallback if the record is gone, undefined while off. */
  target(instanceId: string, fallback: WebhookTarget): WebhookTarget | undefined
  /** Makes one signed POST of the queue's events and judges its answer (in a delivery thread, by default). */
  post: PostOnce
  now: () => number
  random: () => number
  newId: () => string
  logger: Logger
  /**
   * Called after each attempt (and each event skipped because the webhook is off), for metrics and the stream;
   * `sink`: the attempt published to a broker sink of that kind.
   */
  onOutcome(
    outcome: AttemptOutcome | 'skipped',
    attempt?: DeliveryAttempt,
    owner?: string | null,
    sink?: SinkKind,
  ): void
  /** Publishes to a broker sink (a target with `sink`) once: the events in order, confirmed by the broker. */
  publish?(target: WebhookTarget, events: readonly LinkdeskEvent[], attempt: number): Promise<AttemptResult>
  stop: AbortSignal
  /**
   * In a cluster: whether this node may still post for the queue's instance (it holds its lease, within the
   * local deadline), checked right before each POST; while it may not, the worker waits to be stopped.
   */
  mayPost?: () => boolean
  /** In a cluster: this node's id, sent with each POST. */
  node?: string
  /** The queue had entries waiting at start (left by the last run): they are read from the outbox first. */
  resumed?: boolean
  /** Queue ids kept in memory (default MEMORY_QUEUE). */
  memoryQueue?: number
  /**
   * The added webhook this worker delivers to (its queue is its own); absent: the instance's own webhook,
   * whose outcome is also the event's delivery summary.
   */
  webhookId?: string
}

/**
 * Where posts under way are marked: `starting` before each POST answers the entries whose previous post was
 * still under way when its node stopped (the receiver may have it); `settled` once a post's outcome is
 * committed, `requeued` when it kept the entry for a retry.
 */
export interface PostMarks {
  starting(queue: string, queueIds: readonly string[]): Promise<Set<string>>
  settled(queueId: string, requeued: boolean): void
}

/** The commit of a just-emitted event on a store without a journal: its outcome, once known. */
export interface FreshCommit {
  done: boolean
  ok: boolean
  settled: Promise<void>
}

/**
 * A queued entry: just its id when it is read from the outbox, or with its entry and event when just emitted
 * (and, without a journal, its commit: it is durable, and posted, only once that succeeded).
 */
interface Queued {
  queueId: string
  fresh?: { entry: OutboxEntry; stored: StoredEvent; commit?: FreshCommit }
}

/** The entry being delivered, and its event when it came fresh from emit. */
type Head = QueuedEntry & { stored?: StoredEvent }

/** How long a worker whose node may not post (its lease is in doubt) waits before it looks again. */
const LEASE_WAIT_MS = 1_000

/** Queue ids kept in memory per instance by default; beyond, the rest waits in the outbox, read in pages. */
export const MEMORY_QUEUE = 5_000

/**
 * Delivers one instance's events in order, one POST at a time: the head of the queue (with the events
 * waiting behind it, when the webhook takes batches) is retried until it is delivered or given up before the
 * next goes. Each instance has its own worker, so instances deliver concurrently and a slow receiver holds
 * back only its own instance.
 */
export class InstanceDeliveryWorker {
  private readonly queue: Queued[] = []
  /** Whether the outbox holds entries past the memory queue (more than memoryQueue were waiting). */
  private overflow: boolean
  private lastLoaded = ''
  /** Entries queued while in overflow (left in the outbox); a refill that overlaps one must read again. */
  private overflowed = 0
  /** The entries being delivered together (one, unless the webhook takes batches); empty between batches. */
  private current: Head[] = []
  private running: Promise<void> | undefined
  private wake: (() => void) | undefined
  /** The webhook changed since the current attempt started: do not wait out the backoff. */
  private changed = false
  private readonly log: Logger
  private readonly memoryQueue: number

  constructor(
    readonly instanceId: string,
    private readonly deps: WorkerDeps,
  ) {
    this.log = deps.logger.child({ instanceId })
    this.memoryQueue = deps.memoryQueue ?? MEMORY_QUEUE
    // A queue resumed at start is read from the outbox first; one started by this run gets all its entries.
    this.overflow = deps.resumed ?? false
  }

  /**
   * Takes a newly queued entry and starts delivering if idle. An entry just emitted comes with its event and
   * needs no read back from the store (without a journal it waits for its commit); others are read once their
   * write is committed.
   */
  enqueue(queueId: string, fresh?: Queued['fresh']): void {
    if (!this.overflow && this.queue.length < this.memoryQueue) {
      this.queue.push({ queueId, fresh })
      this.lastLoaded = queueId
    } else {
      this.overflow = true
      this.overflowed += 1
    }
    this.kick()
  }

  /** Starts the loop if it is not running, and cuts short a wait. */
  kick(): void {
    this.wake?.()
    if (this.running || this.deps.stop.aborted) return
    this.running = this.run().then(
      () => {
        this.running = undefined
        // An emit in a microtask may have queued an entry after the loop saw an empty queue.
        if (this.queue.length > 0 || this.overflow) this.kick()
      },
      (error: unknown) => {
        this.running = undefined
        this.log.error({ err: error }, 'webhook worker stopped on an error; the next event restarts it')
      },
    )
  }

  /** The webhook changed: the waiting head is tried (or skipped) now instead of after its backoff. */
  retryNow(): void {
    this.changed = true
    this.kick()
  }

  /** Resolves when the loop has stopped (after the stop signal). */
  async stopped(): Promise<void> {
    this.wake?.()
    await this.running
  }

  private async run(): Promise<void> {
    while (!this.deps.stop.aborted) {
      if (this.current.length === 0) {
        const head = await this.next()
        if (!head) return
        this.current = [head]
      }
      if (this.changed) for (const { entry } of this.current) entry.nextAttemptAt = 0
      this.changed = false
      const wait = this.current[0]!.entry.nextAttemptAt - this.deps.now()
      if (wait > 0) await this.sleep(wait)
      else if (this.deps.mayPost?.() === false) await this.sleep(LEASE_WAIT_MS)
      else await this.deliver()
    }
  }

  /** The next entry: as emitted, or read from the outbox once its write is committed. */
  private async next(): Promise<Head | undefined> {
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

  private sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(done, ms)
      function done() {
        clearTimeout(timer)
        resolve()
      }
      this.wake = () => {
        this.wake = undefined
        done()
      }
    })
  }

  /**
   * Adds to a first attempt the entries waiting behind it that are ready now (emitted, or committed), up to
   * the webhook's batch size; a batch being retried keeps its entries, so each retry sends the same events.
   */
  private async fill(batch: Head[], batchSize: number): Promise<void> {
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

  /**
   * A batch being retried when the webhook's batch size went down keeps its first events; the others go
   * back to the front of the queue, in order, with their retry state.
   */
  private trim(batchSize: number): void {
    if (this.current.length <= batchSize) return
    const back = this.current.splice(batchSize)
    this.queue.unshift(
      ...back.map(({ queueId, entry, stored }) => ({
        queueId,
        ...(stored ? { fresh: { entry, stored } } : {}),
      })),
    )
  }

  /** Skips entries whose webhook is off (or gone) or whose event is gone: they leave the outbox undelivered. */
  private skip(entries: Array<{ head: Head; stored: StoredEvent | undefined }>): void {
    if (entries.length === 0) return
    void this.deps.write(
      'skipping a delivery',
      entries.flatMap(({ head, stored }): EventWrite[] => [
        ...(stored && !this.deps.webhookId
          ? [
              {
                kind: 'delivery' as const,
                instanceId: this.instanceId,
                eventId: head.entry.eventId,
                delivery: { ...stored.delivery, status: 'skipped' as const },
              },
            ]
          : []),
        { kind: 'dequeue', queue: this.instanceId, queueId: head.queueId },
      ]),
    )
    for (const _ of entries) this.deps.onOutcome('skipped')
  }

  /**
   * Posts the current batch once (one event, or as many as the webhook takes) and records one attempt per
   * event; the batch then keeps the events to retry, if any.
   */
  private async deliver(): Promise<void> {
    const target = this.deps.target(this.instanceId, this.current[0]!.entry.fallback)
    const batchSize = Math.max(1, target?.batchSize ?? 1)
    if (target) {
      await this.fill(this.current, batchSize)
      this.trim(batchSize)
    }
    const items = await Promise.all(
      this.current.map(async (head) => ({
        head,
        stored: head.stored ?? (await this.deps.store.event(head.entry.eventId)),
      })),
    )
    const gone = target ? items.filter(({ stored }) => !stored) : items
    this.skip(gone)
    const sending = items.filter((item): item is { head: Head; stored: StoredEvent } => !gone.includes(item))
    this.current = sending.map(({ head }) => head)
    if (!target || sending.length === 0) return
    if (this.deps.mayPost?.() === false) return
    const reposts = await this.deps.posts
      .starting(
        this.instanceId,
        sending.map(({ head }) => head.queueId),
      )
      .catch((error: unknown) => {
        // Not marked (the fence refused, or the store failed): not posted now; tried again after a pause.
        this.log.warn({ err: error }, 'marking a webhook post failed')
        return undefined
      })
    if (!reposts) return this.sleep(LEASE_WAIT_MS)
    // The mark took a round trip (on a shared store): a node paused meanwhile past its lease must not post now.
    if (this.deps.mayPost?.() === false) return
    for (const _ of reposts) this.deps.onRepost()
    const attemptedAt = new Date(this.deps.now()).toISOString()
    const attemptNumber = sending[0]!.head.entry.attempts + 1
    const result = target.sink
      ? await this.publish(
          target,
          sending.map(({ stored }) => stored.envelope),
          attemptNumber,
        )
      : await this.deps.post(
          this.instanceId,
          {
            url: target.url,
            secret: target.secret,
            events: sending.map(({ stored }) => stored.envelope),
            batched: batchSize > 1,
            attempt: sending[0]!.head.entry.attempts + 1,
          },
          {
            timeoutMs: this.deps.settings.timeoutMs,
            now: this.deps.now,
            stop: this.deps.stop,
            ...(this.deps.node !== undefined && { node: this.deps.node }),
          },
        )
    if (result.kind === 'aborted') return
    const statusCode = result.statusCode
    const error = result.kind === 'delivered' ? null : result.error
    const retryAt = this.retryAt(result, sending[0]!.head.entry.attempts + 1)
    const attempts = sending.map(({ head, stored }) => {
      const { entry } = head
      const attempt = entry.attempts + 1
      const outcome = this.outcomeOf(result, entry, attempt)
      const record: DeliveryAttempt = {
        delivery_id: this.deps.newId(),
        event_id: entry.eventId,
        instance_id: stored.envelope.instance_id,
        webhook_id: this.deps.webhookId ?? null,
        event: stored.envelope.event,
        attempt,
        attempted_at: attemptedAt,
        url: target.sink ? redactUrl(target.url) : target.url,
        status_code: statusCode,
        latency_ms: result.latencyMs,
        outcome,
        error,
      }
      if (outcome === 'retrying') {
        entry.attempts = attempt
        entry.nextAttemptAt = retryAt
      }
      return { head, stored, record, outcome }
    })
    // Each event's attempt, its summary and its entry's fate commit together: a failed commit leaves the entries
    // queued as they were, so the events are delivered again after a restart rather than lost.
    const queue = this.instanceId
    const recorded = this.deps.write(
      'recording a delivery attempt',
      attempts.flatMap(({ head, stored, record, outcome }): EventWrite[] => {
        const retrying = outcome === 'retrying'
        const delivery = {
          status: retrying ? ('pending' as const) : outcome,
          attempts: record.attempt,
          last_attempt_at: attemptedAt,
          last_status_code: statusCode,
          last_error: error,
        }
        return [
          { kind: 'attempt', attempt: record, owner: stored.owner },
          ...(this.deps.webhookId
            ? []
            : [
                {
                  kind: 'delivery' as const,
                  instanceId: this.instanceId,
                  eventId: record.event_id,
                  delivery,
                },
              ]),
          retrying
            ? { kind: 'retry', queue, queueId: head.queueId, entry: { ...head.entry } }
            : { kind: 'dequeue', queue, queueId: head.queueId },
        ]
      }),
    )
    void recorded.then(() => {
      for (const { head, record } of attempts)
        this.deps.posts.settled(head.queueId, record.outcome === 'retrying')
    })
    for (const { stored, record } of attempts)
      this.deps.onOutcome(record.outcome, record, stored.owner, target.sink?.kind)
    const failed = attempts.filter(({ record }) => record.outcome === 'failed')
    if (failed.length > 0) {
      this.log.warn(
        {
          eventIds: failed.map(({ record }) => record.event_id),
          statusCode,
          attempts: failed[0]!.record.attempt,
        },
        'webhook delivery failed',
      )
    }
    this.current = attempts.filter(({ record }) => record.outcome === 'retrying').map(({ head }) => head)
  }

  private publish(target: WebhookTarget, events: LinkdeskEvent[], attempt: number): Promise<AttemptResult> {
    if (!this.deps.publish) throw new Error('a broker sink is queued but the worker cannot publish')
    return this.deps.publish(target, events, attempt)
  }

  /** When a retry of this attempt may go: the backoff, or the receiver's Retry-After if that is later. */
  private retryAt(result: Exclude<AttemptResult, { kind: 'aborted' }>, attempt: number): number {
    const backoff = retryDelayMs(attempt, this.deps.settings, this.deps.random)
    const retryAfter = result.kind === 'retry' ? (result.retryAfterMs ?? 0) : 0
    return this.deps.now() + Math.max(backoff, retryAfter)
  }

  private outcomeOf(
    result: Exclude<AttemptResult, { kind: 'aborted' }>,
    entry: OutboxEntry,
    attempt: number,
  ): AttemptOutcome {
    if (result.kind === 'delivered') return 'delivered'
    if (result.kind === 'reject') return 'failed'
    const tooOld = this.deps.now() - entry.enqueuedAt >= this.deps.settings.maxAgeMs
    return attempt >= this.deps.settings.maxAttempts || tooOld ? 'failed' : 'retrying'
  }
}
