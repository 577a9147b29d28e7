import type { Dispatcher } from 'undici'
import type { Logger } from '../logger'
import type { WriteBatch } from '../store/write-batch'
import type { AttemptOutcome, DeliveryAttempt, DeliveryLog } from './delivery-log'
import type { EventLog, StoredEvent } from './event-log'
import type { PostsInFlight } from './posts-in-flight'
import type { WebhookSettings } from './event-settings'
import { attemptDelivery, retryDelayMs, type AttemptResult } from './webhook-delivery'
import type { OutboxEntry, QueuedEntry, WebhookOutbox, WebhookTarget } from './webhook-outbox'

/** What a worker needs: the stores, the settings, where to deliver now, and the clock and network. */
export interface WorkerDeps {
  outbox: WebhookOutbox
  events: EventLog
  deliveries: DeliveryLog
  settings: WebhookSettings
  /**
   * Commits the staged writes as one batch; resolves once committed or failed (a failure is reported there,
   * and the entry then stays queued).
   */
  write(what: string, stage: (batch: WriteBatch) => void): Promise<void>
  /** The posts under way (shared by every worker), to count re-posts after a kill. */
  posts: PostsInFlight
  /** A post repeats one that was under way when the previous run stopped (the receiver may have it). */
  onRepost(): void
  /** While the write of this queue id (or, without one, any write) is not committed, a promise of its commit. */
  uncommitted(queueId?: string): Promise<void> | undefined
  /** The instance's webhook now (its record), the fallback if the record is gone, undefined while off. */
  target(instanceId: string, fallback: WebhookTarget): WebhookTarget | undefined
  dispatcher: Dispatcher
  now: () => number
  random: () => number
  newId: () => string
  logger: Logger
  /** Called after each attempt (and each event skipped because the webhook is off), for metrics and the stream. */
  onOutcome(outcome: AttemptOutcome | 'skipped', attempt?: DeliveryAttempt, owner?: string | null): void
  stop: AbortSignal
  /** Queue ids kept in memory (default MEMORY_QUEUE). */
  memoryQueue?: number
  /**
   * The added webhook this worker delivers to (its queue is its own); absent: the instance's own webhook,
   * whose outcome is also the event's delivery summary.
   */
  webhookId?: string
}

/** A queued entry: just its id when it is read from the outbox, or with its entry and event when just emitted. */
interface Queued {
  queueId: string
  fresh?: { entry: OutboxEntry; stored: StoredEvent }
}

/** The entry being delivered, and its event when it came fresh from emit. */
type Head = QueuedEntry & { stored?: StoredEvent }

/** Queue ids kept in memory per instance by default; beyond, the rest waits in the outbox, read in pages. */
export const MEMORY_QUEUE = 5_000

/**
 * Delivers one instance's events one at a time, in order: the head of the queue is retried until it is
 * delivered or given up before the next one goes. Each instance has its own worker, so instances deliver
 * concurrently and a slow receiver holds back only its own instance.
 */
export class InstanceDeliveryWorker {
  private readonly queue: Queued[] = []
  /** Whether the outbox holds entries past the memory queue (more than memoryQueue were waiting). */
  private overflow = false
  private lastLoaded = ''
  /** Entries queued while in overflow (left in the outbox); a refill that overlaps one must read again. */
  private overflowed = 0
  private current: Head | undefined
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
    // Created when nothing of this instance is uncommitted (first emit, start, after a redelivery commit).
    this.overflow = this.load() === this.memoryQueue
  }

  /**
   * Takes a newly queued entry and starts delivering if idle. An entry just emitted comes with its event: it is
   * journaled (durable) and needs no read back from LMDB; others are read once their write is committed.
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
      this.current ??= await this.next()
      const head = this.current
      if (!head) return
      if (this.changed) head.entry.nextAttemptAt = 0
      this.changed = false
      const wait = head.entry.nextAttemptAt - this.deps.now()
      if (wait > 0) await this.sleep(wait)
      else await this.deliver(head)
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
        this.queue.shift()
        return { queueId, entry: { ...fresh.entry }, stored: fresh.stored }
      }
      await this.deps.uncommitted(queueId)
      this.queue.shift()
      const entry = this.deps.outbox.get(this.instanceId, queueId)
      if (entry) return { queueId, entry: { ...entry } }
    }
  }

  private async refill(): Promise<void> {
    // Entries queued in overflow are only in LMDB: read once they are committed, and read again if more
    // came while waiting (they may not be committed yet).
    const overflowed = this.overflowed
    await this.deps.uncommitted()
    this.overflow = this.load() === this.memoryQueue || this.overflowed !== overflowed
  }

  /** Reads the next page of committed entries into the memory queue; returns how many. */
  private load(): number {
    const page = this.deps.outbox.after(this.instanceId, this.lastLoaded, this.memoryQueue)
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

  private async deliver(head: Head): Promise<void> {
    const { entry } = head
    const stored = head.stored ?? this.deps.events.get(entry.eventId)
    const target = this.deps.target(this.instanceId, entry.fallback)
    if (!stored || !target) {
      void this.deps.write('skipping a delivery', (batch) => {
        if (stored && !this.deps.webhookId)
          this.deps.events.setDelivery(batch, entry.eventId, { ...stored.delivery, status: 'skipped' })
        this.deps.outbox.remove(batch, this.instanceId, head.queueId)
      })
      this.deps.onOutcome('skipped')
      this.current = undefined
      return
    }
    const attempt = entry.attempts + 1
    const attemptedAt = new Date(this.deps.now()).toISOString()
    if (this.deps.posts.starting(head.queueId)) this.deps.onRepost()
    const result = await attemptDelivery(
      { url: target.url, secret: target.secret, event: stored.envelope, attempt },
      {
        dispatcher: this.deps.dispatcher,
        timeoutMs: this.deps.settings.timeoutMs,
        now: this.deps.now,
        stop: this.deps.stop,
      },
    )
    if (result.kind === 'aborted') return
    const outcome = this.outcomeOf(result, entry, attempt)
    const statusCode = result.statusCode
    const error = result.kind === 'delivered' ? null : result.error
    const record: DeliveryAttempt = {
      delivery_id: this.deps.newId(),
      event_id: entry.eventId,
      instance_id: stored.envelope.instance_id,
      webhook_id: this.deps.webhookId ?? null,
      event: stored.envelope.event,
      attempt,
      attempted_at: attemptedAt,
      url: target.url,
      status_code: statusCode,
      latency_ms: result.latencyMs,
      outcome,
      error,
    }
    const retrying = outcome === 'retrying'
    if (retrying) {
      entry.attempts = attempt
      const backoff = retryDelayMs(attempt, this.deps.settings, this.deps.random)
      const retryAfter = result.kind === 'retry' ? (result.retryAfterMs ?? 0) : 0
      entry.nextAttemptAt = this.deps.now() + Math.max(backoff, retryAfter)
    }
    // The attempt, the event's summary and the entry's fate commit together: a failed commit leaves the entry
    // queued as it was, so the event is delivered again after a restart rather than lost.
    const recorded = this.deps.write('recording a delivery attempt', (batch) => {
      this.deps.deliveries.record(batch, record, stored.owner)
      if (!this.deps.webhookId) {
        this.deps.events.setDelivery(batch, entry.eventId, {
          status: retrying ? 'pending' : outcome,
          attempts: attempt,
          last_attempt_at: attemptedAt,
          last_status_code: statusCode,
          last_error: error,
        })
      }
      if (retrying) this.deps.outbox.save(batch, this.instanceId, head.queueId, entry)
      else this.deps.outbox.remove(batch, this.instanceId, head.queueId)
    })
    void recorded.then(() => this.deps.posts.settled(head.queueId, retrying))
    this.deps.onOutcome(outcome, record, stored.owner)
    if (retrying) return
    if (outcome === 'failed') {
      this.log.warn({ eventId: entry.eventId, statusCode, attempts: attempt }, 'webhook delivery failed')
    }
    this.current = undefined
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
