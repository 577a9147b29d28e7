import type { Logger } from '../logger'
import type {
  AttemptOutcome,
  DeliveryAttempt,
  EventWrite,
  StoredEvent,
  WebhookTarget,
} from '../store/event-store'
import { redactUrl, type SinkKind } from './broker-sinks'
import type { Head } from './delivery-queue'
import type { PostMarks } from './posts-in-flight'
import { outcomeOf, retryAt, type FinishedAttempt, type RetryPolicyDeps } from './retry-policy'

/** What recording outcomes needs: where they are written, whom they are told to, and the clock and ids. */
export interface DeliveryOutcomeDeps extends RetryPolicyDeps {
  /**
   * Commits the writes together; resolves once committed or failed (a failure is reported there, and the
   * entries then stay queued).
   */
  write(what: string, writes: EventWrite[]): Promise<void>
  /** The posts under way (shared by every worker), to count re-posts after a kill or a failover. */
  posts: PostMarks
  newId: () => string
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
  /**
   * The added webhook this worker delivers to (its queue is its own); absent: the instance's own webhook,
   * whose outcome is also the event's delivery summary.
   */
  webhookId?: string
}

/** An entry being posted, with its event. */
export interface Sending {
  head: Head
  stored: StoredEvent
}

/** One event's attempt as recorded, beside its entry and event. */
interface Recorded extends Sending {
  record: DeliveryAttempt
  outcome: AttemptOutcome
}

/**
 * What one queue's attempts leave behind: each event's attempt record, its delivery summary and its entry's fate
 * (dequeued, or kept with its next retry), committed together and then told to the metrics and the stream.
 */
export class DeliveryOutcomes {
  constructor(
    private readonly instanceId: string,
    private readonly deps: DeliveryOutcomeDeps,
    private readonly log: Logger,
  ) {}

  /** Skips entries whose webhook is off (or gone) or whose event is gone: they leave the outbox undelivered. */
  skip(entries: Array<{ head: Head; stored: StoredEvent | undefined }>): void {
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
   * Records one attempt per event of a batch posted once, and returns the entries kept for a retry (their next
   * attempt scheduled).
   */
  record(target: WebhookTarget, sending: Sending[], result: FinishedAttempt, attemptedAt: string): Head[] {
    const attempts = this.attempts(target, sending, result, attemptedAt)
    // Each event's attempt, its summary and its entry's fate commit together: a failed commit leaves the entries
    // queued as they were, so the events are delivered again after a restart rather than lost.
    const recorded = this.deps.write(
      'recording a delivery attempt',
      this.writes(attempts, result, attemptedAt),
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
          statusCode: result.statusCode,
          attempts: failed[0]!.record.attempt,
        },
        'webhook delivery failed',
      )
    }
    return attempts.filter(({ record }) => record.outcome === 'retrying').map(({ head }) => head)
  }

  /** Each event's attempt record; an entry kept for a retry counts the attempt and waits for its backoff. */
  private attempts(
    target: WebhookTarget,
    sending: Sending[],
    result: FinishedAttempt,
    attemptedAt: string,
  ): Recorded[] {
    const error = result.kind === 'delivered' ? null : result.error
    const retryAtMs = retryAt(result, sending[0]!.head.entry.attempts + 1, this.deps)
    return sending.map(({ head, stored }) => {
      const { entry } = head
      const attempt = entry.attempts + 1
      const outcome = outcomeOf(result, entry, attempt, this.deps)
      const record: DeliveryAttempt = {
        delivery_id: this.deps.newId(),
        event_id: entry.eventId,
        instance_id: stored.envelope.instance_id,
        webhook_id: this.deps.webhookId ?? null,
        event: stored.envelope.event,
        attempt,
        attempted_at: attemptedAt,
        url: target.sink ? redactUrl(target.url) : target.url,
        status_code: result.statusCode,
        latency_ms: result.latencyMs,
        outcome,
        error,
      }
      if (outcome === 'retrying') {
        entry.attempts = attempt
        entry.nextAttemptAt = retryAtMs
      }
      return { head, stored, record, outcome }
    })
  }

  /** The writes of the attempts: the record, the event's summary (own webhook only) and the entry's fate. */
  private writes(attempts: Recorded[], result: FinishedAttempt, attemptedAt: string): EventWrite[] {
    const queue = this.instanceId
    const error = result.kind === 'delivered' ? null : result.error
    return attempts.flatMap(({ head, stored, record, outcome }): EventWrite[] => {
      const retrying = outcome === 'retrying'
      const delivery = {
        status: retrying ? ('pending' as const) : outcome,
        attempts: record.attempt,
        last_attempt_at: attemptedAt,
        last_status_code: result.statusCode,
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
    })
  }
}
