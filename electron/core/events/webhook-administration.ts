import type { Coordinator } from '../contract/coordination'
import type { IdFactory } from '../contract/event-id'
import type { LinkdeskEvent } from '../contract/events'
import { AppError } from '../errors'
import { newWebhookSecret } from '../instances/instance-registry'
import type { AttemptOutcome, EventStore, EventWrite, StoredEvent } from '../store/event-store'
import { webhookQueue } from '../store/outbox-queue'
import type { InstanceRecord } from '../store/settings-store'
import type { DeliverySupervisor } from './delivery-supervisor'
import type { InstanceDirectory } from './event-service'
import { activeWebhook, type EventWrites, outboxEntry } from './event-writes'
import type { WebhookRegistry } from './webhook-registry'

/** What webhook administration is built with: the event service's store, writes, workers and emit. */
export interface WebhookAdministrationDeps {
  store: EventStore
  writes: EventWrites
  deliveries: Pick<DeliverySupervisor, 'enqueueCommitted' | 'webhookChanged'>
  instances: InstanceDirectory
  webhooks?: Pick<WebhookRegistry, 'find' | 'takes'>
  coordinator: Pick<Coordinator, 'partitionOf'>
  emit: (
    instanceId: string,
    event: 'instance.updated' | 'webhook.test',
    data: Record<string, unknown>,
  ) => LinkdeskEvent
  newId: IdFactory
  now: () => number
}

/**
 * What an operator does to webhooks and their deliveries: redelivering an event or every failed one (to the
 * instance's own webhook or an added one), changing the instance's webhook, rotating its secret, and the test
 * event.
 */
export class WebhookAdministration {
  private readonly store: EventStore
  private readonly newId: IdFactory
  private readonly now: () => number

  constructor(private readonly deps: WebhookAdministrationDeps) {
    this.store = deps.store
    this.newId = deps.newId
    this.now = deps.now
  }

  private settled(): Promise<void> {
    return this.deps.writes.settled()
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
    this.deps.emit(instanceId, 'instance.updated', { changed: ['webhook'] })
    this.deps.deliveries.webhookChanged(instanceId)
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
    return this.deps.emit(record.id, 'webhook.test', { message: 'Test event from Linkdesk' })
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
      await this.deps.writes.write(writes, queueIds.at(-1))
    } catch {
      this.deps.writes.countQueued(writes, -1)
      throw new AppError(
        'unavailable',
        'The data store refused the write, so nothing was queued; it has been logged.',
      )
    }
    await this.settled()
    this.deps.deliveries.enqueueCommitted(queue, queueIds)
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
    // The queue is read before the attempts: an attempt and its entry's removal commit together, so an event
    // not waiting here has its latest attempt in the read below (read the other way round, one delivered in
    // between would look failed and not waiting, and be queued again).
    const waiting = await this.queuedEvents(this.webhookQueueOf(webhook.id, instanceId))
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
}
