import { join } from 'node:path'
import type { Coordinator } from '../contract/coordination'
import { createIdFactory, type IdFactory } from '../contract/event-id'
import type { EventSettings, RetentionSettings } from '../contract/event-settings'
import type { EventName } from '../contract/event-catalogue'
import type { EventSink, LinkdeskEvent } from '../contract/events'
import type { MetricsProvider } from '../contract/metrics'
import type { Logger } from '../logger'
import type { EventStore, SharedLog, SweepCount } from '../store/event-store'
import type { InstanceRecord } from '../store/settings-store'
import { DeliverySupervisor } from './delivery-supervisor'
import { EventJournal, type JournalRecord } from './event-journal'
import { EventLog } from './event-log'
import { EventCounters, eventMetricsProvider } from './event-metrics'
import { EventWrites, writesOf } from './event-writes'
import { LiveStream, type StreamSource } from './live-stream'
import { MessageAnnouncements } from './message-announcements'
import { RetentionSweep } from './retention-sweep'
import { WebhookAdministration } from './webhook-administration'
import type { WebhookRegistry } from './webhook-registry'

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

/**
 * Events and webhooks, the way a durable job queue is built: the event log (record, emit, journal, tracked
 * writes), the message announcements, the delivery supervisor (one worker per queue of the outbox), webhook
 * administration, the retention sweep and the metrics; this class builds them from its deps and is what the
 * rest of the app reaches them through (the EventSink producers emit into, the reader of the logs).
 */
export class EventService implements EventSink {
  readonly live = new LiveStream()
  private readonly counters = new EventCounters()
  private readonly journal: EventJournal | undefined
  private readonly writes: EventWrites
  private readonly log: EventLog
  private readonly announcements: MessageAnnouncements
  private readonly deliveries: DeliverySupervisor
  private readonly admin: WebhookAdministration
  private readonly retention: RetentionSweep
  private readonly logger: Logger
  private closing: Promise<void> | undefined

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
    const now = deps.now ?? Date.now
    const logger = deps.logger.child({ module: 'events' })
    this.logger = logger
    const { store, coordinator, instances, webhooks } = deps
    const newId: IdFactory = createIdFactory(now, opened.lastId)
    this.journal =
      deps.durability === 'journal'
        ? new EventJournal(opened.journalPath, { fsync: deps.fsync ?? false })
        : undefined
    const writes = new EventWrites(store, this.journal, logger, opened.depth)
    this.writes = writes
    const shared = { store, writes, instances, webhooks, coordinator, newId, now, logger }
    this.deliveries = new DeliverySupervisor({
      ...shared,
      dataDir: deps.dataDir,
      settings: deps.settings,
      deliveryThreads: deps.deliveryThreads,
      memoryQueue: deps.memoryQueue,
      counters: this.counters,
      live: this.live,
      random: deps.random,
    })
    this.log = new EventLog({
      ...shared,
      journal: this.journal,
      deliveries: this.deliveries,
      sharedLog: deps.sharedLog,
      live: this.live,
      counters: this.counters,
      latestEvent: opened.latestEvent,
    })
    this.announcements = new MessageAnnouncements({
      store,
      log: this.log,
      journaled: this.journal !== undefined,
      coordinator,
    })
    this.admin = new WebhookAdministration({
      ...shared,
      deliveries: this.deliveries,
      emit: (instanceId, event, data) => this.emit(instanceId, event, data),
    })
    this.retention = new RetentionSweep({
      store,
      settled: () => writes.settled(),
      retention: (): RetentionSettings => deps.retention?.() ?? deps.settings.retention,
      now,
      logger,
    })
  }

  /** Where live stream clients read the log: this node's own in id order, or the shared one in commit order. */
  get streamSource(): StreamSource {
    return this.log.streamSource
  }

  /** Resumes the deliveries left in the outbox by the last run (or a crash) and starts the retention sweep. */
  async start(): Promise<void> {
    this.log.start()
    const pending = await this.deliveries.start()
    if (pending > 0) {
      this.logger.info({ queues: pending, events: this.writes.outboxDepth }, 'resuming webhook deliveries')
    }
    this.retention.start()
  }

  /**
   * In a cluster, once this node holds the instance: new ids sort after every id any node made so far (the
   * outbox is read in queue-id order), and the deliveries its previous owner left resume here.
   */
  adopt(instanceId: string): Promise<void> {
    return this.deliveries.adopt(instanceId)
  }

  /** In a cluster, once this node no longer holds the instance: its deliveries stop here (a POST under way is abandoned). */
  release(instanceId: string): Promise<void> {
    return this.deliveries.release(instanceId)
  }

  /** The store behind the service: the event log, delivery attempts and outbox, for reading. */
  get reader(): Pick<EventStore, 'event' | 'events' | 'deliveries'> {
    return this.deps.store
  }

  /** Entries waiting in the outbox, all queues together. */
  get outboxDepth(): number {
    return this.writes.outboxDepth
  }

  /**
   * Records an event and, if the instance's webhook is on, its outbox entry, then publishes it on the live
   * stream and hands it to the delivery workers. With a journal it is durable when this returns (appended
   * before, committed to the store in the next batch); otherwise once `durable()` resolves. Throws only if the
   * journal cannot be written or the service was closed.
   */
  emit(instanceId: string, event: EventName, data: Record<string, unknown>): LinkdeskEvent {
    return this.log.record(instanceId, event, data).envelope
  }

  /**
   * Emits as `emit` does, unless this network message was already announced (then resolves to undefined), and
   * resolves once the event is durable: the caller may then tell the network it has the message. A copy of a
   * message whose event is not durable yet resolves only once it is (its receipt must not go out before the
   * first copy's), and rejects if that event could not be written. The message id is written with the
   * event, so the answer stays the same after a kill -9.
   */
  emitForMessage(
    ...message: Parameters<MessageAnnouncements['announce']>
  ): Promise<LinkdeskEvent | undefined> {
    return this.announcements.announce(...message)
  }

  /**
   * Resolves once every event emitted so far is on the live stream: at once alone (published as emitted); in
   * a cluster once committed and read back from the shared log.
   */
  published(): Promise<void> {
    return this.log.published()
  }

  /** Resolves once every event emitted so far is durable (at once with a journal; else at their commit). */
  durable(): Promise<void> {
    return this.log.durable()
  }

  /** Resolves once every write made so far is committed to the store (reads then see it). */
  settled(): Promise<void> {
    return this.writes.settled()
  }

  /**
   * While the write of `id` (an event or queue id), or without one any write, is not committed to the store,
   * a promise of the commit; otherwise undefined.
   */
  uncommitted(id?: string): Promise<void> | undefined {
    return this.writes.uncommitted(id)
  }

  /** The id of the newest event, committed or not. */
  lastEventId(): string | undefined {
    return this.log.lastEventId()
  }

  /** See WebhookAdministration.redeliver. */
  redeliver(instanceId: string, eventId: string, webhookId?: string): Promise<void> {
    return this.admin.redeliver(instanceId, eventId, webhookId)
  }

  /** See WebhookAdministration.redeliverFailed. */
  redeliverFailed(instanceId: string, webhookId?: string): Promise<number> {
    return this.admin.redeliverFailed(instanceId, webhookId)
  }

  /** Changes the instance's webhook settings and announces it (`instance.updated`). */
  changeWebhook(
    instanceId: string,
    change: (webhook: InstanceRecord['webhook']) => InstanceRecord['webhook'],
  ): Promise<InstanceRecord['webhook']> {
    return this.admin.changeWebhook(instanceId, change)
  }

  /** Replaces the instance's webhook secret; deliveries from now on, retries included, are signed with it. */
  rotateWebhookSecret(instanceId: string): Promise<string> {
    return this.admin.rotateWebhookSecret(instanceId)
  }

  /** Emits a webhook.test event for the instance's webhook; 409 conflict while the webhook is off. */
  sendTestEvent(record: InstanceRecord): LinkdeskEvent {
    return this.admin.sendTestEvent(record)
  }

  /** An added webhook changed or was removed: its delivery waiting for a retry is tried (or dropped) now. */
  addedWebhookChanged(webhookId: string): void {
    this.deliveries.addedWebhookChanged(webhookId)
  }

  /** The instance's webhook settings changed: a delivery waiting for its next retry is tried (or skipped) now. */
  webhookChanged(instanceId: string): void {
    this.deliveries.webhookChanged(instanceId)
  }

  /** Removes events and attempts past the retention; pending events are kept until delivered or failed. */
  sweep(): Promise<SweepCount> {
    return this.retention.sweep()
  }

  /** Counters and gauges of events and deliveries, for GET /metrics. */
  metricsProvider(): MetricsProvider {
    return eventMetricsProvider(this.counters, {
      outboxDepth: () => this.writes.outboxDepth,
      streamClients: () => this.live.clients,
    })
  }

  /** Stops the workers (an attempt in flight is abandoned and stays in the outbox) and commits pending writes. */
  close(): Promise<void> {
    this.closing ??= this.shutdown()
    return this.closing
  }

  private async shutdown(): Promise<void> {
    const closed = this.log.close()
    const stopped = this.deliveries.stopWorkers()
    const swept = this.retention.close()
    await closed
    await stopped
    await swept
    await this.writes.settled()
    await this.deliveries.close()
    this.journal?.close()
  }
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
