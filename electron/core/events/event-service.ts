import type { RootDatabase } from 'lmdb'
import { AppError } from '../errors'
import type { Logger } from '../logger'
import type { InstanceRecord } from '../store/settings-store'
import { ATTEMPT_OUTCOMES, DeliveryLog, type AttemptOutcome } from './delivery-log'
import { InstanceDeliveryWorker } from './delivery-worker'
import { createIdFactory, idFloorAt } from './event-id'
import { EventLog, type StoredEvent } from './event-log'
import type { EventSettings, RetentionSettings } from './event-settings'
import { EVENT_NAMES, type EventName, type EventSink, type LinkdeskEvent } from './event-types'
import { LiveStream } from './live-stream'
import type { MetricsProvider } from './metrics'
import { WebhookOutbox, type WebhookTarget } from './webhook-outbox'

/** Where the service reads an instance's webhook settings and owner (the instance registry). */
export interface InstanceDirectory {
  find(instanceId: string): InstanceRecord | undefined
}

export interface EventServiceDeps {
  db: RootDatabase
  instances: InstanceDirectory
  settings: EventSettings
  logger: Logger
  now?: () => number
  fetch?: typeof fetch
  random?: () => number
  /** Retention in force at each sweep (the operator may change it); defaults to settings.retention. */
  retention?: () => RetentionSettings
}

/** The webhook of an instance record if it is on and has a URL. */
export function activeWebhook(record: InstanceRecord): WebhookTarget | undefined {
  const { url, enable, secret } = record.webhook
  return enable && url ? { url, secret } : undefined
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
  private readonly workers = new Map<string, InstanceDeliveryWorker>()
  private readonly stop = new AbortController()
  private readonly newId: () => string
  private readonly now: () => number
  private readonly log: Logger
  private readonly emitted = new Map<EventName, number>()
  private readonly outcomes = new Map<AttemptOutcome | 'skipped', number>()
  private sweepTimer: NodeJS.Timeout | undefined
  private sweeping: Promise<unknown> | undefined

  constructor(private readonly deps: EventServiceDeps) {
    this.now = deps.now ?? Date.now
    this.log = deps.logger.child({ module: 'events' })
    this.events = new EventLog(deps.db)
    this.deliveries = new DeliveryLog(deps.db)
    this.outbox = new WebhookOutbox(deps.db)
    const latest = [this.events.lastId(), this.deliveries.lastId()]
      .filter((id) => id !== undefined)
      .sort()
      .at(-1)
    this.newId = createIdFactory(this.now, latest)
  }

  /** Resumes the deliveries left in the outbox by the last run (or a crash) and starts the retention sweep. */
  start(): void {
    const pending = this.outbox.instances()
    for (const instanceId of pending) this.worker(instanceId).kick()
    if (pending.length > 0)
      this.log.info({ instances: pending.length, events: this.outbox.depth }, 'resuming webhook deliveries')
    const { sweepIntervalMs } = this.retention()
    this.sweepTimer = setInterval(() => void this.sweep(), sweepIntervalMs)
    this.sweepTimer.unref()
    void this.sweep()
  }

  /**
   * Records an event and queues it for the instance's webhook (if on) in one synchronous LMDB transaction,
   * so the event survives a crash once this returns; then publishes it on the live stream and wakes the
   * instance's delivery worker. Throws only if the database cannot be written.
   */
  emit(instanceId: string, event: EventName, data: Record<string, unknown>): LinkdeskEvent {
    const record = this.deps.instances.find(instanceId)
    const target = record ? activeWebhook(record) : undefined
    const now = this.now()
    const id = this.newId()
    const envelope: LinkdeskEvent = {
      event,
      event_id: id,
      instance_id: instanceId,
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
    this.deps.db.transactionSync(() => {
      this.events.append(stored)
      if (target)
        this.outbox.add(instanceId, id, {
          eventId: id,
          enqueuedAt: now,
          attempts: 0,
          nextAttemptAt: 0,
          fallback: target,
        })
    })
    this.emitted.set(event, (this.emitted.get(event) ?? 0) + 1)
    this.live.publish({ kind: 'event', stored })
    if (target && !this.stop.signal.aborted) this.worker(instanceId).enqueue(id)
    return envelope
  }

  /** Queues a stored event for delivery again (to the instance's webhook as it is now). */
  redeliver(instanceId: string, eventId: string): void {
    const stored = this.events.get(eventId)
    if (!stored || stored.envelope.instance_id !== instanceId) throw new AppError('event_not_found')
    if (stored.delivery.status === 'pending') {
      throw new AppError(
        'conflict',
        'This event is already waiting for delivery; see its attempts with deliveries.',
      )
    }
    this.requeue(instanceId, [stored])
  }

  /** Queues every failed event of an instance for delivery again, oldest first; returns how many. */
  redeliverFailed(instanceId: string): number {
    const failed = this.events
      .idsWithStatus(instanceId, 'failed')
      .map((id) => this.events.get(id))
      .filter((stored) => stored !== undefined)
    if (failed.length > 0) this.requeue(instanceId, failed)
    return failed.length
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
      const events = await this.events.sweep(before, retention.maxEvents)
      const deliveries = await this.deliveries.sweep(before, retention.maxDeliveries)
      if (events + deliveries > 0)
        this.log.info({ events, deliveries }, 'retention sweep removed old entries')
      return { events, deliveries }
    })()
    this.sweeping = run.catch((error: unknown) => this.log.error({ err: error }, 'retention sweep failed'))
    return run
  }

  /** Counters and gauges of events and deliveries, for GET /metrics. */
  metricsProvider(): MetricsProvider {
    return {
      collect: () => [
        {
          name: 'linkdesk_events_total',
          help: 'Events emitted since start, by event name.',
          type: 'counter',
          samples: EVENT_NAMES.map((event) => ({ labels: { event }, value: this.emitted.get(event) ?? 0 })),
        },
        {
          name: 'linkdesk_webhook_deliveries_total',
          help: 'Webhook delivery attempts since start by outcome (skipped: webhook off when the event came up).',
          type: 'counter',
          samples: [...ATTEMPT_OUTCOMES, 'skipped' as const].map((outcome) => ({
            labels: { outcome },
            value: this.outcomes.get(outcome) ?? 0,
          })),
        },
        {
          name: 'linkdesk_webhook_outbox_depth',
          help: 'Events waiting for webhook delivery (including retries), all instances.',
          type: 'gauge',
          samples: [{ value: this.outbox.depth }],
        },
        {
          name: 'linkdesk_stream_clients',
          help: 'Clients connected to the live event stream.',
          type: 'gauge',
          samples: [{ value: this.live.clients }],
        },
      ],
    }
  }

  /** Stops the workers (an attempt in flight is abandoned and stays in the outbox) and waits for pending writes. */
  async close(): Promise<void> {
    this.stop.abort()
    clearInterval(this.sweepTimer)
    await Promise.all([...this.workers.values()].map((worker) => worker.stopped()))
    await this.sweeping
    await this.deps.db.committed
  }

  private requeue(instanceId: string, events: StoredEvent[]): void {
    const record = this.deps.instances.find(instanceId)
    if (!record) throw new AppError('instance_not_found')
    const target = activeWebhook(record)
    if (!target)
      throw new AppError(
        'conflict',
        'The webhook of this instance is off: turn it on with set_webhook first.',
      )
    const now = this.now()
    const queued = events.map((stored) => ({ stored, queueId: this.newId() }))
    this.deps.db.transactionSync(() => {
      for (const { stored, queueId } of queued) {
        const eventId = stored.envelope.event_id
        this.outbox.add(instanceId, queueId, {
          eventId,
          enqueuedAt: now,
          attempts: 0,
          nextAttemptAt: 0,
          fallback: target,
        })
        this.events.replace({ ...stored, delivery: { ...stored.delivery, status: 'pending' } })
      }
    })
    if (this.stop.signal.aborted) return
    const worker = this.worker(instanceId)
    for (const { queueId } of queued) worker.enqueue(queueId)
  }

  private worker(instanceId: string): InstanceDeliveryWorker {
    let worker = this.workers.get(instanceId)
    if (!worker) {
      worker = new InstanceDeliveryWorker(instanceId, {
        outbox: this.outbox,
        events: this.events,
        deliveries: this.deliveries,
        settings: this.deps.settings.webhook,
        target: (id, fallback) => {
          const record = this.deps.instances.find(id)
          return record ? activeWebhook(record) : fallback
        },
        fetch: this.deps.fetch ?? globalThis.fetch,
        now: this.now,
        random: this.deps.random ?? Math.random,
        newId: this.newId,
        logger: this.log,
        onOutcome: (outcome, attempt, owner) => {
          this.outcomes.set(outcome, (this.outcomes.get(outcome) ?? 0) + 1)
          if (attempt) this.live.publish({ kind: 'delivery', attempt, owner: owner ?? null })
        },
        stop: this.stop.signal,
      })
      this.workers.set(instanceId, worker)
    }
    return worker
  }

  private retention(): RetentionSettings {
    return this.deps.retention?.() ?? this.deps.settings.retention
  }
}
