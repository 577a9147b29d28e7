import { join } from 'node:path'
import { Agent, type Dispatcher } from 'undici'
import { AppError } from '../errors'
import { newWebhookSecret } from '../instances/instance-registry'
import type { Logger } from '../logger'
import type { RootDatabase } from '../store/database'
import type { InstanceRecord } from '../store/settings-store'
import { type WriteBatch, writeBatch } from '../store/write-batch'
import { DeliveryLog } from './delivery-log'
import { InstanceDeliveryWorker } from './delivery-worker'
import { createIdFactory, idFloorAt } from './event-id'
import { EventJournal, type ExtraDelivery } from './event-journal'
import { EventLog, type StoredEvent } from './event-log'
import { EventCounters, eventMetricsProvider } from './event-metrics'
import type { EventSettings, RetentionSettings } from './event-settings'
import { contractViolations, type EventName } from './event-catalogue'
import type { EventSink, LinkdeskEvent } from './event-types'
import { LiveStream } from './live-stream'
import { MessageEventIndex } from './message-event-index'
import { PostsInFlight } from './posts-in-flight'
import type { MetricsProvider } from './metrics'
import { WebhookOutbox, type OutboxEntry, type WebhookTarget } from './webhook-outbox'
import { type WebhookRegistry, webhookTakes } from './webhook-registry'

/** Where the service reads and changes an instance's webhook settings and owner (the instance registry). */
export interface InstanceDirectory {
  find(instanceId: string): InstanceRecord | undefined
  update(instanceId: string, change: (record: InstanceRecord) => InstanceRecord): Promise<InstanceRecord>
}

export interface EventServiceDeps {
  db: RootDatabase
  /** Folder of the emit journal (the data folder). */
  dataDir: string
  /** fsync each journal append (survives power loss, not only kill -9); off by default. */
  fsync?: boolean
  instances: InstanceDirectory
  settings: EventSettings
  logger: Logger
  now?: () => number
  random?: () => number
  /** undici dispatcher for the deliveries; by default a keep-alive pool owned (and closed) by the service. */
  dispatcher?: Dispatcher
  /** Retention in force at each sweep (the operator may change it); defaults to settings.retention. */
  retention?: () => RetentionSettings
  /** Queue ids kept in memory per instance; more wait in the outbox and are read in pages. */
  memoryQueue?: number
  /** The webhooks added beside each instance's own (several per instance, global ones per token). */
  webhooks?: Pick<WebhookRegistry, 'targetsOf' | 'find'>
}

/** The outbox queue of an added webhook. */
const WEBHOOK_QUEUE = 'webhook:'

function webhookQueue(webhookId: string): string {
  return `${WEBHOOK_QUEUE}${webhookId}`
}

/** The webhook of an instance record if it is on and has a URL. */
function activeWebhook(record: InstanceRecord): WebhookTarget | undefined {
  const { url, enable, secret, batchSize } = record.webhook
  return enable && url ? { url, secret, ...(batchSize !== undefined && { batchSize }) } : undefined
}

const DAY_MS = 24 * 60 * 60_000

/**
 * Events and webhooks: the EventSink producers emit into, the durable event log and outbox, one delivery
 * worker per instance, the delivery log, the live stream and the retention sweep.
 */
export class EventService implements EventSink {
  readonly events: EventLog
  readonly deliveries: DeliveryLog
  readonly outbox: WebhookOutbox
  readonly live = new LiveStream()
  private readonly messages: MessageEventIndex
  private readonly posts: PostsInFlight
  private readonly journal: EventJournal
  private readonly workers = new Map<string, InstanceDeliveryWorker>()
  private readonly stop = new AbortController()
  private readonly counters = new EventCounters()
  private readonly newId: () => string
  private readonly now: () => number
  private readonly log: Logger
  private readonly dispatcher: Dispatcher
  private pendingWrites = 0
  private lastWrite: Promise<unknown> = Promise.resolve()
  /** Writes resolve in the order they were made; ids up to this one are committed. */
  private committedId = ''
  private latestId: string | undefined
  private sweepTimer: NodeJS.Timeout | undefined
  private sweeping: Promise<unknown> | undefined
  private closed = false
  private closing: Promise<void> | undefined

  constructor(private readonly deps: EventServiceDeps) {
    this.now = deps.now ?? Date.now
    this.log = deps.logger.child({ module: 'events' })
    this.events = new EventLog(deps.db)
    this.deliveries = new DeliveryLog(deps.db)
    this.outbox = new WebhookOutbox(deps.db)
    this.messages = new MessageEventIndex(deps.db)
    this.posts = new PostsInFlight(join(deps.dataDir, 'webhook-posts'))
    this.dispatcher = deps.dispatcher ?? new Agent({ keepAliveTimeout: 30_000 })
    const journalPath = join(deps.dataDir, 'events.journal')
    this.recover(EventJournal.read(journalPath))
    this.journal = new EventJournal(journalPath, { fsync: deps.fsync ?? false })
    this.latestId = this.events.lastId()
    const latest = [this.latestId, this.deliveries.lastId()].filter((id) => id !== undefined).sort()
    this.newId = createIdFactory(this.now, latest.at(-1))
  }

  /** Resumes the deliveries left in the outbox by the last run (or a crash) and starts the retention sweep. */
  start(): void {
    const pending = this.outbox.instances()
    for (const instanceId of pending) this.worker(instanceId).kick()
    if (pending.length > 0) {
      this.log.info({ instances: pending.length, events: this.outbox.depth }, 'resuming webhook deliveries')
    }
    this.sweepTimer = setInterval(() => void this.sweep(), this.retention().sweepIntervalMs)
    this.sweepTimer.unref()
    void this.sweep()
  }

  /**
   * Records an event and, if the instance's webhook is on, its outbox entry: appended to the journal before
   * this returns (it survives kill -9 from then on) and committed to LMDB in the next batch. Then publishes
   * it on the live stream and hands it to the instance's delivery worker. Throws only if the journal cannot
   * be written or the service was closed.
   */
  emit(instanceId: string, event: EventName, data: Record<string, unknown>): LinkdeskEvent {
    return this.record(instanceId, event, data)
  }

  /**
   * Emits as `emit` does, unless this network message was already announced (then returns undefined). The
   * message id is journaled with the event, so the answer stays the same after a kill -9.
   */
  emitForMessage(
    instanceId: string,
    messageId: string,
    event: EventName,
    data: Record<string, unknown>,
  ): LinkdeskEvent | undefined {
    if (this.messages.eventOf(instanceId, messageId) !== undefined) return undefined
    return this.record(instanceId, event, data, messageId)
  }

  private record(
    instanceId: string,
    event: EventName,
    data: Record<string, unknown>,
    messageId?: string,
  ): LinkdeskEvent {
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
    const extra: ExtraDelivery[] = (this.deps.webhooks?.targetsOf(instanceId, stored.owner, event) ?? []).map(
      (webhook) => ({
        queue: webhookQueue(webhook.id),
        queueId: this.newId(),
        entry: outboxEntry(id, now, { url: webhook.url, secret: webhook.secret }),
      }),
    )
    this.journal.append({ stored, outbox, messageId, ...(extra.length > 0 ? { extra } : {}) })
    const written = writeBatch(this.deps.db, (batch) => {
      this.events.append(batch, stored)
      if (outbox) this.outbox.add(batch, instanceId, id, outbox)
      for (const { queue, queueId, entry } of extra) this.outbox.add(batch, queue, queueId, entry)
      if (messageId !== undefined) this.messages.add(batch, instanceId, messageId, id)
    })
    this.track(written, id)
    if (messageId !== undefined) {
      // A failed commit keeps the entry: the journal still holds the event for the next start.
      written.then(
        () => this.messages.committed(instanceId, messageId, id),
        () => undefined,
      )
    }
    this.journal.rotate(this.lastWrite)
    this.latestId = id
    this.counters.countEvent(event)
    this.live.publish({ kind: 'event', stored })
    if (!this.stop.signal.aborted) {
      if (outbox) this.worker(instanceId).enqueue(id, { entry: outbox, stored })
      for (const { queue, queueId, entry } of extra) this.worker(queue).enqueue(queueId, { entry, stored })
    }
    return envelope
  }

  /** Resolves once every write made so far is committed to LMDB (reads then see it). */
  async settled(): Promise<void> {
    await this.lastWrite
  }

  /**
   * While the write of `id` (an event or queue id), or without one any write, is not committed to LMDB, a
   * promise of the commit; otherwise undefined.
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
    const stored = this.events.get(eventId)
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

  /** Queues every failed event of an instance for delivery again, oldest first; resolves to how many. */
  async redeliverFailed(instanceId: string): Promise<number> {
    await this.settled()
    const failed = this.events
      .idsWithStatus(instanceId, 'failed')
      .map((id) => this.events.get(id))
      .filter((stored) => stored !== undefined)
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
    this.workers.get(webhookQueue(webhookId))?.retryNow()
  }

  /** The instance's webhook settings changed: a delivery waiting for its next retry is tried (or skipped) now. */
  webhookChanged(instanceId: string): void {
    this.workers.get(instanceId)?.retryNow()
  }

  /** Removes events and attempts past the retention; pending events are kept until delivered or failed. */
  async sweep(): Promise<{ events: number; deliveries: number }> {
    const retention = this.retention()
    const before = idFloorAt(this.now() - retention.maxAgeDays * DAY_MS)
    const run = (async () => {
      await this.settled()
      const events = await this.events.sweep(before, retention.maxEvents)
      const deliveries = await this.deliveries.sweep(before, retention.maxDeliveries)
      await this.messages.sweep(before)
      if (events + deliveries > 0)
        this.log.info({ events, deliveries }, 'retention sweep removed old entries')
      return { events, deliveries }
    })()
    this.sweeping = run.catch((error: unknown) => this.log.error({ err: error }, 'retention sweep failed'))
    return run
  }

  /** Counters and gauges of events and deliveries, for GET /metrics. */
  metricsProvider(): MetricsProvider {
    return eventMetricsProvider(this.counters, {
      outboxDepth: () => this.outbox.depth,
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
    await Promise.all([...this.workers.values()].map((worker) => worker.stopped()))
    await this.sweeping
    await this.settled()
    if (!this.deps.dispatcher) await this.dispatcher.close()
    this.journal.close()
    this.posts.close()
  }

  /** Writes to LMDB what the last run journaled but did not commit (it was killed in between). */
  private recover(records: ReturnType<typeof EventJournal.read>): void {
    const missing = records.filter(({ stored }) => !this.events.get(stored.envelope.event_id))
    if (missing.length === 0) return
    this.deps.db.transactionSync(() => {
      for (const { stored, outbox, extra, messageId } of missing) {
        const { instance_id: instanceId, event_id: eventId } = stored.envelope
        this.events.appendSync(stored)
        if (outbox) this.outbox.addSync(instanceId, eventId, outbox)
        for (const { queue, queueId, entry } of extra ?? []) this.outbox.addSync(queue, queueId, entry)
        if (messageId !== undefined) this.messages.addSync(instanceId, messageId, eventId)
      }
    })
    this.log.info({ events: missing.length }, 'recovered journaled events')
  }

  private track(write: Promise<unknown>, id?: string): void {
    this.pendingWrites += 1
    this.lastWrite = write.then(
      () => this.written(id),
      (error: unknown) => {
        // The journal still holds what did not commit: it is kept from now on, and the next start writes it.
        this.journal.keep()
        this.written(id)
        this.log.error({ err: error }, 'event log write failed; the events stay in the journal')
      },
    )
  }

  private written(id: string | undefined): void {
    if (id !== undefined && id > this.committedId) this.committedId = id
    this.pendingWrites -= 1
    if (this.pendingWrites === 0) this.journal.clear()
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
      (batch) => {
        for (const { stored, queueId } of queued) {
          const eventId = stored.envelope.event_id
          this.events.setDelivery(batch, eventId, { ...stored.delivery, status: 'pending', attempts: 0 })
          this.outbox.add(batch, instanceId, queueId, outboxEntry(eventId, this.now(), target))
        }
      },
    )
  }

  /**
   * Writes the outbox entries `stage` adds to `queue` and, once committed, hands them to its worker; a
   * refused write queues nothing and says so.
   */
  private async queueCommitted(queue: string, queueIds: string[], stage: (batch: WriteBatch) => void) {
    const write = writeBatch(this.deps.db, stage)
    this.track(write, queueIds.at(-1))
    try {
      await write
    } catch {
      throw new AppError(
        'unavailable',
        'The data folder refused the write, so nothing was queued; it has been logged.',
      )
    }
    await this.settled()
    if (this.stop.signal.aborted) return
    const worker = this.worker(queue)
    for (const queueId of queueIds) worker.enqueue(queueId)
  }

  /** Queues an event again for one added webhook (enabled, and taking the event's instance). */
  private async requeueToWebhook(stored: StoredEvent, webhookId: string): Promise<void> {
    const webhook = this.deps.webhooks?.find(webhookId)
    const instanceId = stored.envelope.instance_id
    if (!webhook || !webhookTakes(webhook, instanceId, stored.owner))
      throw new AppError('webhook_not_found', 'No webhook with that webhook_id takes this instance’s events.')
    if (!webhook.enable)
      throw new AppError('conflict', 'That webhook is off: turn it on with update_webhook first.')
    const queue = webhookQueue(webhook.id)
    const queueId = this.newId()
    await this.queueCommitted(queue, [queueId], (batch) =>
      this.outbox.add(batch, queue, queueId, outboxEntry(stored.envelope.event_id, this.now(), webhook)),
    )
  }

  /** The added webhook's delivery target now: undefined once it is removed or off (its queue is then skipped). */
  private webhookTarget(queue: string): WebhookTarget | undefined {
    const webhook = this.deps.webhooks?.find(queue.slice(WEBHOOK_QUEUE.length))
    if (!webhook?.enable) return undefined
    const { url, secret, batchSize } = webhook
    return { url, secret, ...(batchSize !== undefined && { batchSize }) }
  }

  /** The worker of a queue: an instance's own webhook (keyed by instance id) or an added webhook's. */
  private worker(instanceId: string): InstanceDeliveryWorker {
    let worker = this.workers.get(instanceId)
    if (!worker) {
      const webhookId = instanceId.startsWith(WEBHOOK_QUEUE)
        ? instanceId.slice(WEBHOOK_QUEUE.length)
        : undefined
      worker = new InstanceDeliveryWorker(instanceId, {
        ...(webhookId ? { webhookId } : {}),
        outbox: this.outbox,
        events: this.events,
        deliveries: this.deliveries,
        settings: this.deps.settings.webhook,
        write: (what, stage) =>
          writeBatch(this.deps.db, stage).catch((error: unknown) =>
            this.log.error({ err: error, instanceId }, `${what} failed`),
          ),
        posts: this.posts,
        onRepost: () => this.counters.countRepost(),
        target: (id, fallback) => {
          if (webhookId) return this.webhookTarget(id)
          const record = this.deps.instances.find(id)
          return record ? activeWebhook(record) : fallback
        },
        uncommitted: (id) => this.uncommitted(id),
        dispatcher: this.dispatcher,
        now: this.now,
        random: this.deps.random ?? Math.random,
        newId: this.newId,
        logger: this.log,
        onOutcome: (outcome, attempt, owner) => {
          this.counters.countOutcome(outcome)
          if (attempt) this.live.publish({ kind: 'delivery', attempt, owner: owner ?? null })
        },
        stop: this.stop.signal,
        memoryQueue: this.deps.memoryQueue,
      })
      this.workers.set(instanceId, worker)
    }
    return worker
  }

  private retention(): RetentionSettings {
    return this.deps.retention?.() ?? this.deps.settings.retention
  }
}

function outboxEntry(eventId: string, now: number, { url, secret }: WebhookTarget): OutboxEntry {
  return { eventId, enqueuedAt: now, attempts: 0, nextAttemptAt: 0, fallback: { url, secret } }
}
