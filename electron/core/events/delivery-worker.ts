import type { Logger } from '../logger'
import type { EventStore, WebhookTarget } from '../store/event-store'
import type { AttemptResult } from './webhook-delivery'
import type { PostOnce } from './delivery-threads'
import type { LinkdeskEvent } from '../contract/events'
import { DeliveryOutcomes, type DeliveryOutcomeDeps, type Sending } from './delivery-outcomes'
import { DeliveryQueue, type DeliveryQueueDeps, type FreshEntry, type Head } from './delivery-queue'

/**
 * What a worker needs: the stores, where to deliver now, and the network; with what its queue reads
 * (DeliveryQueueDeps) and what recording its outcomes takes: the settings, the clock and ids (DeliveryOutcomeDeps).
 */
export interface WorkerDeps extends DeliveryQueueDeps, DeliveryOutcomeDeps {
  store: Pick<EventStore, 'event' | 'queued' | 'queuedAfter'>
  /** A post repeats one that was under way when the previous run stopped (the receiver may have it). */
  onRepost(): void
  /** The instance's webhook now (its record), the fallback if the record is gone, undefined while off. */
  target(instanceId: string, fallback: WebhookTarget): WebhookTarget | undefined
  /** Makes one signed POST of the queue's events and judges its answer (in a delivery thread, by default). */
  post: PostOnce
  logger: Logger
  /** Publishes to a broker sink (a target with `sink`) once: the events in order, confirmed by the broker. */
  publish?(target: WebhookTarget, events: readonly LinkdeskEvent[], attempt: number): Promise<AttemptResult>
  /**
   * In a cluster: whether this node may still post for the queue's instance (it holds its lease, within the
   * local deadline), checked right before each POST; while it may not, the worker waits to be stopped.
   */
  mayPost?: () => boolean
  /** In a cluster: this node's id, sent with each POST. */
  node?: string
}

/** How long a worker whose node may not post (its lease is in doubt) waits before it looks again. */
const LEASE_WAIT_MS = 1_000

/**
 * Delivers one instance's events in order, one POST at a time: the head of the queue (with the events
 * waiting behind it, when the webhook takes batches) is retried until it is delivered or given up before the
 * next goes. Each instance has its own worker, so instances deliver concurrently and a slow receiver holds
 * back only its own instance.
 */
export class InstanceDeliveryWorker {
  private readonly queue: DeliveryQueue
  private readonly outcomes: DeliveryOutcomes
  /** The entries being delivered together (one, unless the webhook takes batches); empty between batches. */
  private current: Head[] = []
  private running: Promise<void> | undefined
  private wake: (() => void) | undefined
  /** The webhook changed since the current attempt started: do not wait out the backoff. */
  private changed = false
  private readonly log: Logger

  constructor(
    readonly instanceId: string,
    private readonly deps: WorkerDeps,
  ) {
    this.log = deps.logger.child({ instanceId })
    this.queue = new DeliveryQueue(instanceId, deps)
    this.outcomes = new DeliveryOutcomes(instanceId, deps, this.log)
  }

  /**
   * Takes a newly queued entry and starts delivering if idle. An entry just emitted comes with its event and
   * needs no read back from the store (without a journal it waits for its commit); others are read once their
   * write is committed.
   */
  enqueue(queueId: string, fresh?: FreshEntry): void {
    this.queue.enqueue(queueId, fresh)
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
        if (this.queue.waiting) this.kick()
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
        const head = await this.queue.next()
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
   * A batch being retried when the webhook's batch size went down keeps its first events; the others go
   * back to the front of the queue, in order, with their retry state.
   */
  private trim(batchSize: number): void {
    if (this.current.length <= batchSize) return
    this.queue.putBack(this.current.splice(batchSize))
  }

  /**
   * Posts the current batch once (one event, or as many as the webhook takes) and records one attempt per
   * event; the batch then keeps the events to retry, if any.
   */
  private async deliver(): Promise<void> {
    const target = this.deps.target(this.instanceId, this.current[0]!.entry.fallback)
    const batchSize = Math.max(1, target?.batchSize ?? 1)
    if (target) {
      await this.queue.fill(this.current, batchSize)
      this.trim(batchSize)
    }
    const items = await Promise.all(
      this.current.map(async (head) => ({
        head,
        stored: head.stored ?? (await this.deps.store.event(head.entry.eventId)),
      })),
    )
    const gone = target ? items.filter(({ stored }) => !stored) : items
    this.outcomes.skip(gone)
    const sending = items.filter((item): item is Sending => !gone.includes(item))
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
    this.current = this.outcomes.record(target, sending, result, attemptedAt)
  }

  private publish(target: WebhookTarget, events: LinkdeskEvent[], attempt: number): Promise<AttemptResult> {
    if (!this.deps.publish) throw new Error('a broker sink is queued but the worker cannot publish')
    return this.deps.publish(target, events, attempt)
  }
}
