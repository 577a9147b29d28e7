import { join } from 'node:path'
import { Agent } from 'undici'
import type { Coordinator } from '../contract/coordination'
import type { EventSettings } from '../contract/event-settings'
import type { IdFactory } from '../contract/event-id'
import type { Logger } from '../logger'
import type { EventStore, WebhookTarget } from '../store/event-store'
import { queueParts } from '../store/outbox-queue'
import { BrokerSinks } from './broker-sinks'
import { InstanceDeliveryWorker } from './delivery-worker'
import { DeliveryThreads, type PostOnce } from './delivery-threads'
import type { EventCounters } from './event-metrics'
import type { InstanceDirectory } from './event-service'
import { activeWebhook, type EventWrites } from './event-writes'
import type { LiveStream } from './live-stream'
import { PostsInFlight, type PostMarks } from './posts-in-flight'
import { attemptDelivery } from './webhook-delivery'
import type { WebhookRegistry } from './webhook-registry'

/** What the supervisor is built with: the event service's store, writes, settings and coordinator. */
export interface DeliverySupervisorDeps {
  store: EventStore
  writes: EventWrites
  /** The data folder: the posts under way, when the store does not keep them. */
  dataDir: string
  instances: InstanceDirectory
  webhooks?: Pick<WebhookRegistry, 'find'>
  settings: EventSettings
  coordinator: Coordinator
  /** Worker threads that sign and POST the webhooks; 0 posts on the main thread (see EventServiceDeps). */
  deliveryThreads?: number
  memoryQueue?: number
  counters: EventCounters
  live: LiveStream
  newId: IdFactory
  now: () => number
  random?: () => number
  logger: Logger
}

/** What an event just recorded hands to its queue's worker. */
export type FreshDelivery = NonNullable<Parameters<InstanceDeliveryWorker['enqueue']>[1]>

/**
 * The delivery workers: one per queue (an instance's own webhook, keyed by instance id, or an added webhook's),
 * started for the queues this node delivers, resumed from the outbox at start and on adoption, stopped on
 * release and at close; where their POSTs are made (the delivery threads, or the main thread's pool) and their
 * broker connections.
 */
export class DeliverySupervisor {
  private readonly workers = new Map<string, { worker: InstanceDeliveryWorker; stop: AbortController }>()
  private readonly stop = new AbortController()
  /** Posts under way: in the shared store when it keeps them, else in a local file. */
  private readonly posts: PostMarks
  private readonly localPosts: PostsInFlight | undefined
  /** Where the webhook POSTs are made: the delivery threads, or the main thread's pool. */
  private readonly delivery: { post: PostOnce; close(): Promise<void> }
  /** The broker connections of the sinks (add_sink). */
  private readonly brokers: BrokerSinks
  private readonly store: EventStore
  private readonly log: Logger

  constructor(private readonly deps: DeliverySupervisorDeps) {
    this.store = deps.store
    this.log = deps.logger
    const { markPosting } = deps.store
    const local = markPosting ? undefined : new PostsInFlight(join(deps.dataDir, 'webhook-posts'))
    this.localPosts = local
    this.posts = {
      starting: (queue, queueIds) =>
        markPosting
          ? markPosting(queue, queueIds)
          : Promise.resolve(new Set(queueIds.filter((queueId) => local!.starting(queueId)))),
      settled: (queueId, requeued) => local?.settled(queueId, requeued),
    }
    this.delivery =
      (deps.deliveryThreads ?? 0) === 0
        ? mainThreadPosts()
        : new DeliveryThreads(deps.deliveryThreads ?? 0, this.log)
    this.brokers = new BrokerSinks(this.log)
  }

  /** Whether the supervisor has stopped (nothing is handed to a worker then). */
  get stopped(): boolean {
    return this.stop.signal.aborted
  }

  /** Resumes the deliveries left in the outbox by the last run (or a crash); resolves to how many queues. */
  async start(): Promise<number> {
    const pending = (await this.store.queues()).filter((queue) => this.delivers(queue))
    for (const queue of pending) this.worker(queue, true).kick()
    return pending.length
  }

  /**
   * In a cluster, once this node holds the instance: new ids sort after every id any node made so far (the
   * outbox is read in queue-id order), and the deliveries its previous owner left resume here.
   */
  async adopt(instanceId: string): Promise<void> {
    const lastId = await this.store.lastId()
    if (lastId) this.deps.newId.after(lastId)
    const queues = await this.store.queues(instanceId)
    // Entries its previous owner queued count here from now on (this node removes them).
    this.deps.writes.adjustDepth(await this.store.queueDepth(instanceId))
    for (const queue of queues) this.worker(queue, true).kick()
  }

  /** In a cluster, once this node no longer holds the instance: its deliveries stop here (a POST under way is abandoned). */
  async release(instanceId: string): Promise<void> {
    const stopping = [...this.workers].filter(([queue]) => queueParts(queue).instanceId === instanceId)
    for (const [queue, { worker, stop }] of stopping) {
      stop.abort()
      this.workers.delete(queue)
      await worker.stopped()
    }
    // What it leaves in the outbox is its next owner's to count.
    await this.deps.writes.settled()
    this.deps.writes.adjustDepth(-(await this.store.queueDepth(instanceId)))
  }

  /** Whether this node delivers the queue: always alone, in a cluster only for an instance it holds. */
  delivers(queue: string): boolean {
    return this.deps.coordinator.mayRun(queueParts(queue).instanceId)
  }

  /** Hands an event just recorded to its queue's worker, if this node delivers the queue. */
  handOver(queue: string, queueId: string, fresh: FreshDelivery): void {
    if (this.delivers(queue)) this.worker(queue).enqueue(queueId, fresh)
  }

  /** Hands entries committed to the outbox (a redelivery) to their queue's worker. */
  enqueueCommitted(queue: string, queueIds: readonly string[]): void {
    if (this.stopped) return
    const worker = this.worker(queue)
    for (const queueId of queueIds) worker.enqueue(queueId)
  }

  /** An added webhook changed or was removed: its delivery waiting for a retry is tried (or dropped) now. */
  addedWebhookChanged(webhookId: string): void {
    for (const [queue, { worker }] of this.workers)
      if (queueParts(queue).webhookId === webhookId) worker.retryNow()
  }

  /** The instance's webhook settings changed: a delivery waiting for its next retry is tried (or skipped) now. */
  webhookChanged(instanceId: string): void {
    this.workers.get(instanceId)?.worker.retryNow()
  }

  /** Stops the workers (an attempt in flight is abandoned and stays in the outbox). */
  async stopWorkers(): Promise<void> {
    this.stop.abort()
    await Promise.all([...this.workers.values()].map(({ worker }) => worker.stopped()))
  }

  /** Closes where the POSTs are made, the broker connections and the posts-under-way file. */
  async close(): Promise<void> {
    await this.delivery.close()
    await this.brokers.close()
    this.localPosts?.close()
  }

  /** The added webhook's delivery target now: undefined once it is removed or off (its queue is then skipped). */
  private webhookTarget(queue: string): WebhookTarget | undefined {
    const webhook = this.deps.webhooks?.find(queueParts(queue).webhookId ?? '')
    if (!webhook?.enable) return undefined
    const { url, secret, batchSize, sink } = webhook
    return { url, secret, ...(batchSize !== undefined && { batchSize }), ...(sink && { sink }) }
  }

  /** The worker of a queue: an instance's own webhook (keyed by instance id) or an added webhook's. */
  private worker(instanceId: string, resumed = false): InstanceDeliveryWorker {
    let worker = this.workers.get(instanceId)?.worker
    if (!worker) {
      const { webhookId, instanceId: owner } = queueParts(instanceId)
      const stop = new AbortController()
      const { coordinator, counters, writes } = this.deps
      worker = new InstanceDeliveryWorker(instanceId, {
        ...(webhookId ? { webhookId } : {}),
        resumed,
        store: this.store,
        settings: this.deps.settings.webhook,
        write: (what, changes) => {
          writes.countQueued(changes)
          // A delivery's outcome lost to a crash makes a re-post at worst: its commit may share a later one.
          return this.store.commit(changes, { deferrable: true }).catch((error: unknown) => {
            // Nothing of it committed: the entries it removed are still queued.
            writes.countQueued(changes, -1)
            this.log.error({ err: error, instanceId }, `${what} failed`)
          })
        },
        posts: this.posts,
        onRepost: () => counters.countRepost(),
        target: (id, fallback) => {
          if (webhookId) return this.webhookTarget(id)
          const record = this.deps.instances.find(id)
          return record ? activeWebhook(record) : fallback
        },
        uncommitted: (id) => writes.uncommitted(id),
        post: this.delivery.post,
        now: this.deps.now,
        random: this.deps.random ?? Math.random,
        newId: this.deps.newId,
        logger: this.log,
        publish: (target, events, attempt) =>
          this.brokers.publish(
            { sinkId: webhookId ?? instanceId, url: target.url, sink: target.sink! },
            events,
            attempt,
            this.deps.settings.webhook.timeoutMs,
            this.stop.signal,
          ),
        onOutcome: (outcome, attempt, owner, sink) => {
          if (sink) counters.countSink(sink, outcome)
          else counters.countOutcome(outcome)
          if (attempt) this.deps.live.publish({ kind: 'delivery', attempt, owner: owner ?? null })
        },
        stop: AbortSignal.any([this.stop.signal, stop.signal]),
        mayPost: () => coordinator.mayRun(owner),
        node: coordinator.nodeId,
        memoryQueue: this.deps.memoryQueue,
      })
      this.workers.set(instanceId, { worker, stop })
    }
    return worker
  }
}

/** POSTs on the main thread, through a keep-alive pool of its own (`deliveryThreads: 0`). */
function mainThreadPosts(): { post: PostOnce; close(): Promise<void> } {
  const dispatcher = new Agent({ keepAliveTimeout: 30_000 })
  return {
    post: (_queue, request, deps) => attemptDelivery(request, { ...deps, dispatcher }),
    close: () => dispatcher.close(),
  }
}
