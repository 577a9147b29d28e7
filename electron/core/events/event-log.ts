import type { Coordinator } from '../contract/coordination'
import type { IdFactory } from '../contract/event-id'
import { contractViolations, type EventName } from '../contract/event-catalogue'
import type { LinkdeskEvent } from '../contract/events'
import { AppError, isAppError } from '../errors'
import type { Logger } from '../logger'
import {
  type EventStore,
  MessageAlreadyAnnounced,
  type SharedLog,
  type StoredEvent,
} from '../store/event-store'
import { webhookQueue } from '../store/outbox-queue'
import { redactUrl } from './broker-sinks'
import type { DeliverySupervisor } from './delivery-supervisor'
import type { FreshCommit } from './delivery-queue'
import type { EventJournal, ExtraDelivery, JournalRecord } from './event-journal'
import type { EventCounters } from './event-metrics'
import type { InstanceDirectory } from './event-service'
import { activeWebhook, type EventWrites, outboxEntry, writesOf } from './event-writes'
import type { LiveStream, StreamSource } from './live-stream'
import { LogFollower } from './log-follower'
import type { WebhookRegistry } from './webhook-registry'

/** An event just recorded: its envelope, its commit, and when it is durable (the journal, or the commit). */
export interface Recorded {
  envelope: LinkdeskEvent
  written: Promise<void>
  durable: Promise<void>
}

/** What the log is built with: the event service's store, journal, writes and delivery supervisor. */
export interface EventLogDeps {
  store: EventStore
  journal: EventJournal | undefined
  writes: EventWrites
  deliveries: Pick<DeliverySupervisor, 'handOver' | 'stopped'>
  instances: InstanceDirectory
  webhooks?: Pick<WebhookRegistry, 'targetsOf'>
  coordinator: Coordinator
  sharedLog?: SharedLog
  live: LiveStream
  counters: EventCounters
  newId: IdFactory
  now: () => number
  logger: Logger
  /** The newest event id in the store when the service opened. */
  latestEvent?: string
}

/**
 * The event log: records each event (its envelope, delivery summary and outbox entries), appends it to the
 * journal where there is one, commits it through the tracked writes, publishes it on the live stream (or, on a
 * shared log, follows the log) and hands it to the delivery workers.
 */
export class EventLog {
  private latestId: string | undefined
  private closed = false
  private readonly follower: LogFollower | undefined
  private readonly store: EventStore
  private readonly journal: EventJournal | undefined
  private readonly writes: EventWrites
  private readonly newId: IdFactory
  private readonly now: () => number
  private readonly log: Logger

  constructor(private readonly deps: EventLogDeps) {
    this.store = deps.store
    this.journal = deps.journal
    this.writes = deps.writes
    this.newId = deps.newId
    this.now = deps.now
    this.log = deps.logger
    this.latestId = deps.latestEvent
    if (deps.sharedLog) {
      const follower = new LogFollower(deps.sharedLog, deps.live, this.log)
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
          await this.writes.settled()
          return shared.positionOf(lastEventId)
        },
        page: (filter, position, limit) => shared.follow(filter, position, limit),
      }
    }
    return {
      start: async (lastEventId) => lastEventId ?? this.lastEventId() ?? '',
      page: async (filter, position, limit) => {
        // The replay reads the committed log: what was emitted so far is committed first.
        await this.writes.settled()
        const page = await this.store.events(filter, { cursor: position, limit, order: 'asc' })
        return {
          items: page.items.map((stored) => ({ stored, position: stored.envelope.event_id })),
          position: page.nextCursor ?? page.items.at(-1)?.envelope.event_id ?? position,
          done: page.nextCursor === null,
        }
      },
    }
  }

  /** Starts following the shared log, where there is one. */
  start(): void {
    this.follower?.start()
  }

  /** Records nothing more from now on, and stops following the shared log. */
  async close(): Promise<void> {
    this.closed = true
    await this.follower?.stop()
  }

  /**
   * Resolves once every event emitted so far is on the live stream: at once alone (published as emitted); in
   * a cluster once committed and read back from the shared log.
   */
  async published(): Promise<void> {
    const latest = this.latestId
    if (!this.follower || latest === undefined) return
    await this.writes.settled()
    await this.follower.caughtUp(latest)
  }

  /** Resolves once every event emitted so far is durable (at once with a journal; else at their commit). */
  durable(): Promise<void> {
    return this.journal ? Promise.resolve() : this.writes.settled()
  }

  /** The id of the newest event, committed or not. */
  lastEventId(): string | undefined {
    return this.latestId
  }

  record(instanceId: string, event: EventName, data: Record<string, unknown>, messageId?: string): Recorded {
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
    const written = this.writes.write(writesOf(journaled), id, { deferrable: this.journal !== undefined })
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
    this.journal?.rotate(this.writes.last)
    this.latestId = id
    this.deps.counters.countEvent(event)
    if (this.follower)
      void written.then(
        () => this.deps.coordinator.commits.announce(),
        () => undefined,
      )
    else this.deps.live.publish({ kind: 'event', stored, position: id })
    const { deliveries } = this.deps
    if (!deliveries.stopped) {
      // Without a journal the event is durable at its commit: posted only then, and never if the commit fails
      // (a receiver must not hold an event a crash takes out of the log: its message would be announced again).
      const commit = this.journal ? undefined : commitOf(written)
      if (outbox) deliveries.handOver(instanceId, id, { entry: outbox, stored, commit })
      for (const { queue, queueId, entry } of extra)
        deliveries.handOver(queue, queueId, { entry, stored, commit })
    }
    return { envelope, written, durable }
  }
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
