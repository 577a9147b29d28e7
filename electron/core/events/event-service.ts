import { join } from 'node:path'
import { Agent } from 'undici'
import { type Coordinator, leaseLost } from '../contract/coordination'
import { AppError, isAppError } from '../errors'
import { newWebhookSecret } from '../instances/instance-registry'
import type { Logger } from '../logger'
import type { InstanceRecord } from '../store/settings-store'
import { type FreshCommit, InstanceDeliveryWorker, type PostMarks } from './delivery-worker'
import { DeliveryThreads, type PostOnce } from './delivery-threads'
import { attemptDelivery } from './webhook-delivery'
import { createIdFactory, idFloorAt, type IdFactory } from '../contract/event-id'
import { EventJournal, type ExtraDelivery, type JournalRecord } from './event-journal'
import type {
  CommitOptions,
  StoredEvent,
  EventStore,
  EventWrite,
  SweepCount,
  OutboxEntry,
  WebhookTarget,
} from '../store/event-store'
import { EventCounters, eventMetricsProvider } from './event-metrics'
import type { EventSettings, RetentionSettings } from '../contract/event-settings'
import { contractViolations, type EventName } from '../contract/event-catalogue'
import type { EventSink, LinkdeskEvent } from '../contract/events'
import { LiveStream, type StreamSource } from './live-stream'
import { LogFollower } from './log-follower'
import { MessageAlreadyAnnounced, type AttemptOutcome, type SharedLog } from '../store/event-store'
import { boundedCache, CACHE_LIMITS } from '../bounded-cache'
import { PostsInFlight } from './posts-in-flight'
import type { MetricsProvider } from '../contract/metrics'
import { queueParts, webhookQueue } from '../store/outbox-queue'
import type { WebhookRegistry } from './webhook-registry'
import { BrokerSinks, redactUrl } from './broker-sinks'

/** Where the service reads and changes an instance's webhook settings and owner (the instance registry). */
export interface InstanceDirectory {
  find(instanceId: string): InstanceRecord | undefined
  update(instanceId: string, change: (record: InstanceRecord) => InstanceRecord): Promise<InstanceRecord>
}

export interface EventServiceDeps {
  store: EventStore
  /**
   * When an event is durable: `journal` (an embedded store committing in the background: each emit is first
   * appended to a journal file in the data folder, replayed into the store at the next start) or `commit`
   * (a shared store: the commit itself, awaited by emitForMessage and `durable`).
   */
  durability: 'journal' | 'commit'
  /** The data folder: the emit journal and the posts under way. */
  dataDir: string
  /** fsync each journal append (survives power loss, not only kill -9); off by default. */
  fsync?: boolean
  instances: InstanceDirectory
  settings: EventSettings
  logger: Logger
  now?: () => number
  random?: () => number
  /**
   * Worker threads that sign and POST the webhooks; 0 (the default) posts on the main thread, through a
   * keep-alive pool of its own: on two cores the threads' hand-overs cost more CPU than they take off the main
   * thread (docs/benchmarks.md).
   */
  deliveryThreads?: number
  /** Retention in force at each sweep (the operator may change it); defaults to settings.retention. */
  retention?: () => RetentionSettings
  /** Queue ids kept in memory per instance; more wait in the outbox and are read in pages. */
  memoryQueue?: number
  /** The webhooks added beside each instance's own (several per instance, global ones per token). */
  webhooks?: Pick<WebhookRegistry, 'targetsOf' | 'find' | 'takes'>
  /**
   * How this node shares the work: deliveries run only for the instances it may act for (in a cluster `adopt`
   * starts them, `release` stops them), an added webhook's queue is split as the coordinator splits work (per
   * instance in a cluster), neither a POST nor a message's "durable" answer happens for an instance lost, and
   * commits to a shared log are announced through it.
   */
  coordinator: Coordinator
  /**
   * On a store several nodes write (PostgreSQL): the log read in commit order. The live stream then follows it
   * (every node's events, in commit order, woken by the coordinator's announcements) instead of this node's
   * emits.
   */
  sharedLog?: SharedLog
}

/** An event just recorded: its envelope, its commit, and when it is durable (the journal, or the commit). */
interface Recorded {
  envelope: LinkdeskEvent
  written: Promise<void>
  durable: Promise<void>
}

/** What announcing a network message came to: its event, or a copy of one being written. */
type Announcement = { emitted: Recorded } | { copyOf: { eventId: string; durable: Promise<void> } }

/** The webhook of an instance record if it is on and has a URL. */
function activeWebhook(record: InstanceRecord): WebhookTarget | undefined {
  const { url, enable, secret, batchSize } = record.webhook
  return enable && url ? { url, secret, ...(batchSize !== undefined && { batchSize }) } : undefined
}

const DAY_MS = 24 * 60 * 60_000

/**
 * Events and webhooks: the EventSink producers emit into, the durable event log and outbox (an EventStore),
 * one delivery worker per queue, the delivery log, the live stream and the retention sweep.
 */
export class EventService implements EventSink {
  readonly live = new LiveStream()
  /** Posts under way: in the shared store when it keeps them, else in a local file. */
  private readonly posts: PostMarks
  private readonly localPosts: PostsInFlight | undefined
  private readonly journal: EventJournal | undefined
  private readonly workers = new Map<string, { worker: InstanceDeliveryWorker; stop: AbortController }>()
  private readonly stop = new AbortController()
  private readonly counters = new EventCounters()
  private readonly newId: IdFactory
  private readonly now: () => number
  private readonly log: Logger
  /** Where the webhook POSTs are made: the delivery threads, or the main thread's pool. */
  private readonly delivery: { post: PostOnce; close(): Promise<void> }
  /** The broker connections of the sinks (add_sink). */
  private readonly brokers: BrokerSinks
  private readonly store: EventStore
  /**
   * Network messages announced but not committed yet (`instanceId\0messageId`): their event id, and when the
   * event is durable. A copy of such a message waits for that before it counts as announced.
   */
  private readonly claimed = new Map<string, { eventId: string; durable: Promise<void> }>()
  /**
   * On a store that claims message ids in the commit: ids whose claim this process saw committed (or refused
   * as taken), so a copy (the echo of a send, a message delivered again) is known without a round trip.
   */
  private readonly announced = boundedCache<string, true>(CACHE_LIMITS.messageIdsInFlight)
  /** Per instance, message announcements look up and record one after the other, in call order. */
  private readonly announcing = new Map<string, Promise<unknown>>()
  private pendingWrites = 0
  private lastWrite: Promise<unknown> = Promise.resolve()
  /** Writes resolve in the order they were made; ids up to this one are committed. */
  private committedId = ''
  private latestId: string | undefined
  /** Outbox entries waiting, all queues together (counted as writes are made). */
  private depth: number
  private sweepTimer: NodeJS.Timeout | undefined
  private sweeping: Promise<unknown> | undefined
  private closed = false
  private closing: Promise<void> | undefined
  private readonly follower: LogFollower | undefined

  /** Opens the service on its store: first writes what the last run journaled but did not commit. */
  static async open(deps: EventServiceDeps): Promise<EventService> {
    const log = deps.logger.child({ module: 'events' })
    const journalPath = join(deps.dataDir, 'events.journal')
    if (deps.durability === 'journal') await recover(deps.store, EventJournal.read(journalPath), log)
    // In a cluster the gauge counts the queues this node delivers: none yet (each adoption adds its instance's).
    const [lastId, latestEvent, depth] = await Promise.all([
      deps.store.lastId(),
      deps.store.lastEventId(),
      deps.coordinator.nodeId === undefined ? deps.store.queueDepth() : 0,
    ])
    return new EventService(deps, { journalPath, lastId, latestEvent, depth })
  }

  private constructor(
    private readonly deps: EventServiceDeps,
    opened: { journalPath: string; lastId?: string; latestEvent?: string; depth: number },
  ) {
    this.now = deps.now ?? Date.now
    this.log = deps.logger.child({ module: 'events' })
    this.store = deps.store
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
    this.journal =
      deps.durability === 'journal'
        ? new EventJournal(opened.journalPath, { fsync: deps.fsync ?? false })
        : undefined
    this.latestId = opened.latestEvent
    this.depth = opened.depth
    this.newId = createIdFactory(this.now, opened.lastId)
    if (deps.sharedLog) {
      const follower = new LogFollower(deps.sharedLog, this.live, this.log)
      deps.coordinator.commits.onAnnounced(() => follower.wake())
      this.follower = follower
    }
  }

  /** Where live stream clients read the log: this node's own in id order, or the shared one in commit order. */
  get streamSource(): StreamSource {
    const shared = this.deps.sharedLog
    if (shared) {
      return {
        // The resume point of an event this node just emitted is known once its commit is done.
        start: async (lastEventId) => {
          await this.settled()
          return shared.positionOf(lastEventId)
        },
        page: (filter, position, limit) => shared.follow(filter, position, limit),
      }
    }
    return {
      start: async (lastEventId) => lastEventId ?? this.lastEventId() ?? '',
      page: async (filter, position, limit) => {
        // The replay reads the committed log: what was emitted so far is committed first.
        await this.settled()
        const page = await this.store.events(filter, { cursor: position, limit, order: 'asc' })
        return {
          items: page.items.map((stored) => ({ stored, position: stored.envelope.event_id })),
          position: page.nextCursor ?? page.items.at(-1)?.envelope.event_id ?? position,
          done: page.nextCursor === null,
        }
      },
    }
  }

  /** Resumes the deliveries left in the outbox by the last run (or a crash) and starts the retention sweep. */
  async start(): Promise<void> {
    this.follower?.start()
    const pending = (await this.store.queues()).filter((queue) => this.delivers(queue))
    for (const queue of pending) this.worker(queue, true).kick()
    if (pending.length > 0) {
      this.log.info({ queues: pending.length, events: this.depth }, 'resuming webhook deliveries')
    }
    this.sweepTimer = setInterval(() => void this.sweep(), this.retention().sweepIntervalMs)
    this.sweepTimer.unref()
    void this.sweep()
  }

  /**
   * In a cluster, once this node holds the instance: new ids sort after every id any node made so far (the
   * outbox is read in queue-id order), and the deliveries its previous owner left resume here.
   */
  async adopt(instanceId: string): Promise<void> {
    const lastId = await this.store.lastId()
    if (lastId) this.newId.after(lastId)
    const queues = await this.store.queues(instanceId)
    // Entries its previous owner queued count here from now on (this node removes them).
    this.depth += await this.store.queueDepth(instanceId)
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
    await this.settled()
    this.depth -= await this.store.queueDepth(instanceId)
  }

  /** Whether this node delivers the queue: always alone, in a cluster only for an instance it holds. */
  private delivers(queue: string): boolean {
    return this.deps.coordinator.mayRun(queueParts(queue).instanceId)
  }

  /** The store behind the service: the event log, delivery attempts and outbox, for reading. */
  get reader(): Pick<EventStore, 'event' | 'events' | 'deliveries'> {
    return this.store
  }

  /** Entries waiting in the outbox, all queues together. */
  get outboxDepth(): number {
    return this.depth
  }

  /**
   * Records an event and, if the instance's webhook is on, its outbox entry, then publishes it on the live
   * stream and hands it to the delivery workers. With a journal it is durable when this returns (appended
   * before, committed to the store in the next batch); otherwise once `durable()` resolves. Throws only if the
   * journal cannot be written or the service was closed.
   */
  emit(instanceId: string, event: EventName, data: Record<string, unknown>): LinkdeskEvent {
    return this.record(instanceId, event, data).envelope
  }

  /**
   * Emits as `emit` does, unless this network message was already announced (then resolves to undefined), and
   * resolves once the event is durable: the caller may then tell the network it has the message. A copy of a
   * message whose event is not durable yet resolves only once it is (its receipt must not go out before the
   * first copy's), and rejects if that event could not be written. The message id is written with the
   * event, so the answer stays the same after a kill -9.
   */
  emitForMessage(
    instanceId: string,
    messageId: string,
    event: EventName,
    data: Record<string, unknown>,
  ): Promise<LinkdeskEvent | undefined> {
    const key = `${instanceId}\u0000${messageId}`
    const previous = this.announcing.get(instanceId) ?? Promise.resolve()
    const recorded = previous.then(async (): Promise<Announcement | undefined> => {
      const earlier = this.claimed.get(key)
      if (earlier) return { copyOf: earlier }
      if (this.announced.has(key)) return undefined
      // A store that claims the id in the event's own commit needs no lookup first (one round trip, not two).
      if (!this.store.claimsInCommit) {
        if ((await this.store.eventOfMessage(instanceId, messageId)) !== undefined) return undefined
        const meanwhile = this.claimed.get(key)
        if (meanwhile) return { copyOf: meanwhile }
      }
      const emitted = this.record(instanceId, event, data, messageId)
      const claim = { eventId: emitted.envelope.event_id, durable: emitted.durable }
      this.claimed.set(key, claim)
      const release = () => this.claimed.get(key) === claim && this.claimed.delete(key)
      // A failed commit keeps the claim with a journal (the next start writes the event from it); without
      // one the event is lost, so a later copy of the message is announced afresh, unless the commit failed
      // because the id was claimed already.
      emitted.written.then(
        () => {
          if (this.store.claimsInCommit) this.announced.set(key, true)
          release()
        },
        (error: unknown) => {
          if (error instanceof MessageAlreadyAnnounced) this.announced.set(key, true)
          if (this.journal === undefined) release()
        },
      )
      return { emitted }
    })
    const settled = recorded.catch(() => undefined)
    this.announcing.set(instanceId, settled)
    void settled.then(() => {
      if (this.announcing.get(instanceId) === settled) this.announcing.delete(instanceId)
    })
    return recorded.then(async (result) => {
      if (!result) return undefined
      try {
        await ('copyOf' in result ? result.copyOf.durable : result.emitted.durable)
      } catch (error) {
        // Its commit found the id claimed (by an earlier run, or a peer): announced already, and durable.
        if (error instanceof MessageAlreadyAnnounced) return undefined
        throw error
      }
      if ('copyOf' in result) return undefined
      // A node that lost the instance meanwhile must not let the network think it kept the message.
      if (!this.deps.coordinator.mayAct(instanceId)) throw leaseLost(instanceId)
      return result.emitted.envelope
    })
  }

  /**
   * Resolves once every event emitted so far is on the live stream: at once alone (published as emitted); in
   * a cluster once committed and read back from the shared log.
   */
  async published(): Promise<void> {
    const latest = this.latestId
    if (!this.follower || latest === undefined) return
    await this.settled()
    await this.follower.caughtUp(latest)
  }

  /** Resolves once every event emitted so far is durable (at once with a journal; else at their commit). */
  durable(): Promise<void> {
    return this.journal ? Promise.resolve() : this.settled()
  }

  private record(
    instanceId: string,
    event: EventName,
    data: Record<string, unknown>,
    messageId?: string,
  ): Recorded {
    if (this.closed)
      throw new AppError('unavailable', 'The event service has stopped; the event was not recorded.')
    const violations = contractViolations(event, data)
    // A producer out of step with the catalogue is a bug to report, not a reason to lose the event.
    if (violations.length > 0)
      this.log.warn({ instanceId, event, violations }, 'event data departs from the event catalogue')
    const record = this.deps.instances.find(instanceId)
    const target = record ? activeWebhook(record) : undefined
    const now = this.now()
    const id = this.newId()
    const envelope: LinkdeskEvent = {
      event,
      event_id: id,
      instance_id: instanceId,
      instance_name: record?.name ?? null,
      timestamp: String(Math.floor(now / 1000)),
      data,
    }
    const stored: StoredEvent = {
      envelope,
      owner: record?.ownerTokenId ?? null,
      delivery: {
        status: target ? 'pending' : 'skipped',
        attempts: 0,
        last_attempt_at: null,
        last_status_code: null,
        last_error: null,
      },
    }
    const outbox = target ? outboxEntry(id, now, target) : undefined
    const extra: ExtraDelivery[] = (this.deps.webhooks?.targetsOf(instanceId, event) ?? []).map(
      (webhook) => ({
        queue: webhookQueue(webhook.id, this.deps.coordinator.partitionOf(instanceId)),
        queueId: this.newId(),
        // A sink's broker address may hold a password: the outbox keeps it redacted (it is read from the sink).
        entry: outboxEntry(id, now, {
          url: webhook.sink ? redactUrl(webhook.url) : webhook.url,
          secret: webhook.secret,
        }),
      }),
    )
    const journaled: JournalRecord = { stored, outbox, messageId, ...(extra.length > 0 ? { extra } : {}) }
    this.journal?.append(journaled)
    // Journaled, the event is durable already: its commit may wait to share a later transaction.
    const written = this.write(writesOf(journaled), id, { deferrable: this.journal !== undefined })
    const durable = this.journal
      ? Promise.resolve()
      : written.catch((error: unknown) => {
          // A node that lost the instance says so; a message announced already is no failure (see
          // emitForMessage); any other refusal is the store's.
          if (isAppError(error) || error instanceof MessageAlreadyAnnounced) throw error
          throw new AppError('unavailable', 'The store refused the write, so the event was not recorded.')
        })
    // A plain emit does not wait for durability: its failure is logged by the write, not left unhandled.
    durable.catch(() => undefined)
    this.journal?.rotate(this.lastWrite)
    this.latestId = id
    this.counters.countEvent(event)
    if (this.follower)
      void written.then(
        () => this.deps.coordinator.commits.announce(),
        () => undefined,
      )
    else this.live.publish({ kind: 'event', stored, position: id })
    if (!this.stop.signal.aborted) {
      // Without a journal the event is durable at its commit: posted only then, and never if the commit fails
      // (a receiver must not hold an event a crash takes out of the log: its message would be announced again).
      const commit = this.journal ? undefined : commitOf(written)
      if (outbox && this.delivers(instanceId))
        this.worker(instanceId).enqueue(id, { entry: outbox, stored, commit })
      for (const { queue, queueId, entry } of extra)
        if (this.delivers(queue)) this.worker(queue).enqueue(queueId, { entry, stored, commit })
    }
    return { envelope, written, durable }
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

  /** The id of the newest event, committed or not. */
  lastEventId(): string | undefined {
    return this.latestId
  }

  /**
   * Queues a stored event for delivery again: to the instance's webhook as it is now, or to the added webhook
   * `webhookId` (which must take the event's instance).
   */
  async redeliver(instanceId: string, eventId: string, webhookId?: string): Promise<void> {
    await this.settled()
    const stored = await this.store.event(eventId)
    if (!stored || stored.envelope.instance_id !== instanceId) throw new AppError('event_not_found')
    if (webhookId !== undefined) return this.requeueToWebhook(stored, webhookId)
    if (stored.delivery.status === 'pending') {
      throw new AppError(
        'conflict',
        'This event is already waiting for delivery; see its attempts with deliveries.',
      )
    }
    await this.requeue(instanceId, [stored])
  }

  /**
   * Queues every failed event of an instance for delivery again, oldest first: to its own webhook, or (given
   * `webhookId`) to that added webhook; resolves to how many.
   */
  async redeliverFailed(instanceId: string, webhookId?: string): Promise<number> {
    await this.settled()
    if (webhookId !== undefined) return this.redeliverFailedToWebhook(instanceId, webhookId)
    const ids = await this.store.idsWithStatus(instanceId, 'failed')
    const failed = (await Promise.all(ids.map((id) => this.store.event(id)))).filter(
      (stored) => stored !== undefined,
    )
    if (failed.length > 0) await this.requeue(instanceId, failed)
    return failed.length
  }

  /** Changes the instance's webhook settings and announces it (`instance.updated`). */
  async changeWebhook(
    instanceId: string,
    change: (webhook: InstanceRecord['webhook']) => InstanceRecord['webhook'],
  ): Promise<InstanceRecord['webhook']> {
    const record = await this.deps.instances.update(instanceId, (current) => ({
      ...current,
      webhook: change(current.webhook),
    }))
    this.emit(instanceId, 'instance.updated', { changed: ['webhook'] })
    this.webhookChanged(instanceId)
    return record.webhook
  }

  /** Replaces the instance's webhook secret; deliveries from now on, retries included, are signed with it. */
  async rotateWebhookSecret(instanceId: string): Promise<string> {
    const webhook = await this.changeWebhook(instanceId, (current) => ({
      ...current,
      secret: newWebhookSecret(),
    }))
    return webhook.secret
  }

  /** Emits a webhook.test event for the instance's webhook; 409 conflict while the webhook is off. */
  sendTestEvent(record: InstanceRecord): LinkdeskEvent {
    if (!activeWebhook(record)) {
      throw new AppError('conflict', 'The webhook is off: set a webhook_url with enable=true first.')
    }
    return this.emit(record.id, 'webhook.test', { message: 'Test event from Linkdesk' })
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

  /** Removes events and attempts past the retention; pending events are kept until delivered or failed. */
  async sweep(): Promise<SweepCount> {
    const retention = this.retention()
    const before = idFloorAt(this.now() - retention.maxAgeDays * DAY_MS)
    const run = (async () => {
      await this.settled()
      const removed = await this.store.sweep(before, {
        events: retention.maxEvents,
        deliveries: retention.maxDeliveries,
      })
      if (removed.events + removed.deliveries > 0)
        this.log.info(removed, 'retention sweep removed old entries')
      return removed
    })()
    this.sweeping = run.catch((error: unknown) => this.log.error({ err: error }, 'retention sweep failed'))
    return run
  }

  /** Counters and gauges of events and deliveries, for GET /metrics. */
  metricsProvider(): MetricsProvider {
    return eventMetricsProvider(this.counters, {
      outboxDepth: () => this.depth,
      streamClients: () => this.live.clients,
    })
  }

  /** Stops the workers (an attempt in flight is abandoned and stays in the outbox) and commits pending writes. */
  close(): Promise<void> {
    this.closing ??= this.shutdown()
    return this.closing
  }

  private async shutdown(): Promise<void> {
    this.closed = true
    this.stop.abort()
    clearInterval(this.sweepTimer)
    await this.follower?.stop()
    await Promise.all([...this.workers.values()].map(({ worker }) => worker.stopped()))
    await this.sweeping
    await this.settled()
    await this.delivery.close()
    await this.brokers.close()
    this.journal?.close()
    this.localPosts?.close()
  }

  /** Commits writes to the store, counting the outbox, and tracks the commit (`settled`, `uncommitted`). */
  private write(writes: EventWrite[], id?: string, options?: CommitOptions): Promise<void> {
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
  private countQueued(writes: readonly EventWrite[], undo: 1 | -1 = 1): void {
    for (const write of writes) {
      if (write.kind === 'enqueue') this.depth += undo
      else if (write.kind === 'dequeue') this.depth -= undo
    }
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

  private async requeue(instanceId: string, events: StoredEvent[]): Promise<void> {
    const record = this.deps.instances.find(instanceId)
    if (!record) throw new AppError('instance_not_found')
    const target = activeWebhook(record)
    if (!target) {
      throw new AppError(
        'conflict',
        'The webhook of this instance is off: turn it on with set_webhook first.',
      )
    }
    const queued = events.map((stored) => ({ stored, queueId: this.newId() }))
    await this.queueCommitted(
      instanceId,
      queued.map(({ queueId }) => queueId),
      queued.flatMap(({ stored, queueId }): EventWrite[] => {
        const eventId = stored.envelope.event_id
        return [
          {
            kind: 'delivery',
            instanceId,
            eventId,
            delivery: { ...stored.delivery, status: 'pending', attempts: 0 },
          },
          { kind: 'enqueue', queue: instanceId, queueId, entry: outboxEntry(eventId, this.now(), target) },
        ]
      }),
    )
  }

  /**
   * Commits the outbox entries `writes` add to `queue` and, once committed, hands them to its worker; a
   * refused write queues nothing and says so.
   */
  private async queueCommitted(queue: string, queueIds: string[], writes: EventWrite[]) {
    try {
      await this.write(writes, queueIds.at(-1))
    } catch {
      this.countQueued(writes, -1)
      throw new AppError(
        'unavailable',
        'The data store refused the write, so nothing was queued; it has been logged.',
      )
    }
    await this.settled()
    if (this.stop.signal.aborted) return
    const worker = this.worker(queue)
    for (const queueId of queueIds) worker.enqueue(queueId)
  }

  /** Queues an event again for one added webhook (enabled, and taking the event's instance). */
  private async requeueToWebhook(stored: StoredEvent, webhookId: string): Promise<void> {
    await this.queueToWebhook(stored.envelope.instance_id, webhookId, [stored.envelope.event_id])
  }

  /**
   * Queues again, oldest first, the instance's events whose latest attempt to the added webhook failed (not
   * those still waiting in its queue); resolves to how many.
   */
  private async redeliverFailedToWebhook(instanceId: string, webhookId: string): Promise<number> {
    const webhook = this.addedWebhookFor(instanceId, webhookId)
    const latest = new Map<string, AttemptOutcome>()
    let cursor: string | undefined
    do {
      const page = await this.store.deliveries(
        { instanceId, webhookId, visible: () => true },
        { cursor, limit: 500, order: 'desc' },
      )
      for (const attempt of page.items)
        if (!latest.has(attempt.event_id)) latest.set(attempt.event_id, attempt.outcome)
      cursor = page.nextCursor ?? undefined
    } while (cursor)
    const waiting = await this.queuedEvents(this.webhookQueueOf(webhook.id, instanceId))
    const failed = [...latest]
      .filter(([eventId, outcome]) => outcome === 'failed' && !waiting.has(eventId))
      .map(([eventId]) => eventId)
    const kept = await this.store.existing(failed)
    const ids = failed.filter((eventId) => kept.has(eventId)).sort()
    if (ids.length > 0) await this.queueToWebhook(instanceId, webhookId, ids)
    return ids.length
  }

  /** The added webhook `webhookId` if it takes the instance's events and is on; 404 or 409 otherwise. */
  private addedWebhookFor(instanceId: string, webhookId: string) {
    const webhook = this.deps.webhooks?.find(webhookId)
    if (!webhook || !this.deps.webhooks?.takes(webhook, instanceId))
      throw new AppError('webhook_not_found', 'No webhook with that webhook_id takes this instance’s events.')
    if (!webhook.enable)
      throw new AppError('conflict', 'That webhook is off: turn it on with update_webhook first.')
    return webhook
  }

  private webhookQueueOf(webhookId: string, instanceId: string): string {
    return webhookQueue(webhookId, this.deps.coordinator.partitionOf(instanceId))
  }

  /** The event ids waiting in a queue. */
  private async queuedEvents(queue: string): Promise<Set<string>> {
    const ids = new Set<string>()
    let after = ''
    for (;;) {
      const entries = await this.store.queuedAfter(queue, after, 500)
      for (const { entry } of entries) ids.add(entry.eventId)
      const last = entries.at(-1)
      if (!last) return ids
      after = last.queueId
    }
  }

  /** Queues the events, in this order, for one added webhook (enabled, and taking the instance's events). */
  private async queueToWebhook(instanceId: string, webhookId: string, eventIds: string[]): Promise<void> {
    const webhook = this.addedWebhookFor(instanceId, webhookId)
    const queue = this.webhookQueueOf(webhook.id, instanceId)
    const queued = eventIds.map((eventId) => ({ eventId, queueId: this.newId() }))
    await this.queueCommitted(
      queue,
      queued.map(({ queueId }) => queueId),
      queued.map(({ eventId, queueId }) => ({
        kind: 'enqueue' as const,
        queue,
        queueId,
        entry: outboxEntry(eventId, this.now(), webhook),
      })),
    )
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
      const { coordinator } = this.deps
      worker = new InstanceDeliveryWorker(instanceId, {
        ...(webhookId ? { webhookId } : {}),
        resumed,
        store: this.store,
        settings: this.deps.settings.webhook,
        write: (what, writes) => {
          this.countQueued(writes)
          // A delivery's outcome lost to a crash makes a re-post at worst: its commit may share a later one.
          return this.store.commit(writes, { deferrable: true }).catch((error: unknown) => {
            // Nothing of it committed: the entries it removed are still queued.
            this.countQueued(writes, -1)
            this.log.error({ err: error, instanceId }, `${what} failed`)
          })
        },
        posts: this.posts,
        onRepost: () => this.counters.countRepost(),
        target: (id, fallback) => {
          if (webhookId) return this.webhookTarget(id)
          const record = this.deps.instances.find(id)
          return record ? activeWebhook(record) : fallback
        },
        uncommitted: (id) => this.uncommitted(id),
        post: this.delivery.post,
        now: this.now,
        random: this.deps.random ?? Math.random,
        newId: this.newId,
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
          if (sink) this.counters.countSink(sink, outcome)
          else this.counters.countOutcome(outcome)
          if (attempt) this.live.publish({ kind: 'delivery', attempt, owner: owner ?? null })
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

  private retention(): RetentionSettings {
    return this.deps.retention?.() ?? this.deps.settings.retention
  }
}

/** The writes of one emitted event: the event (with its message id), and its outbox entries. */
function writesOf({ stored, outbox, extra, messageId }: JournalRecord): EventWrite[] {
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

/** A commit's outcome, readable at once once it is known. */
function commitOf(written: Promise<void>): FreshCommit {
  const commit: FreshCommit = {
    done: false,
    ok: false,
    settled: written.then(
      () => {
        commit.done = true
        commit.ok = true
      },
      () => {
        commit.done = true
      },
    ),
  }
  return commit
}

/** Writes to the store what the last run journaled but did not commit (it was killed in between). */
async function recover(store: EventStore, records: JournalRecord[], log: Logger): Promise<void> {
  if (records.length === 0) return
  const stored = await store.existing(records.map(({ stored }) => stored.envelope.event_id))
  const missing = records.filter(({ stored: { envelope } }) => !stored.has(envelope.event_id))
  if (missing.length === 0) return
  await store.commit(missing.flatMap(writesOf))
  log.info({ events: missing.length }, 'recovered journaled events')
}

function outboxEntry(eventId: string, now: number, { url, secret }: WebhookTarget): OutboxEntry {
  return { eventId, enqueuedAt: now, attempts: 0, nextAttemptAt: 0, fallback: { url, secret } }
}

/** POSTs on the main thread, through a keep-alive pool of its own (`deliveryThreads: 0`). */
function mainThreadPosts(): { post: PostOnce; close(): Promise<void> } {
  const dispatcher = new Agent({ keepAliveTimeout: 30_000 })
  return {
    post: (_queue, request, deps) => attemptDelivery(request, { ...deps, dispatcher }),
    close: () => dispatcher.close(),
  }
}
