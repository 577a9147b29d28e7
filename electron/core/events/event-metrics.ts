import { ATTEMPT_OUTCOMES, type AttemptOutcome } from '../store/event-store'
import { EVENT_NAMES, type EventName } from '../contract/event-catalogue'
import type { MetricsProvider } from '../contract/metrics'
import { SINK_KINDS, type SinkKind } from './broker-sinks'

/** The counters the event service keeps for GET /metrics. */
export class EventCounters {
  readonly emitted = new Map<EventName, number>()
  readonly outcomes = new Map<AttemptOutcome | 'skipped', number>()
  /** Posts repeating one under way when the app last stopped. */
  reposts = 0

  countEvent(event: EventName): void {
    this.emitted.set(event, (this.emitted.get(event) ?? 0) + 1)
  }

  countOutcome(outcome: AttemptOutcome | 'skipped'): void {
    this.outcomes.set(outcome, (this.outcomes.get(outcome) ?? 0) + 1)
  }

  /** Broker sink publishes by sink kind and outcome (`kind\0outcome`). */
  readonly sinks = new Map<string, number>()

  countSink(kind: SinkKind, outcome: AttemptOutcome | 'skipped'): void {
    const key = `${kind}\u0000${outcome}`
    this.sinks.set(key, (this.sinks.get(key) ?? 0) + 1)
  }

  countRepost(): void {
    this.reposts += 1
  }
}

/** Events by name, deliveries by outcome, the outbox depth and the stream clients, as metric families. */
export function eventMetricsProvider(
  counters: EventCounters,
  gauges: { outboxDepth: () => number; streamClients: () => number },
): MetricsProvider {
  return {
    collect: () => [
      {
        name: 'linkdesk_events_total',
        help: 'Events emitted since start, by event name.',
        type: 'counter',
        samples: EVENT_NAMES.map((event) => ({ labels: { event }, value: counters.emitted.get(event) ?? 0 })),
      },
      {
        name: 'linkdesk_webhook_deliveries_total',
        help: 'Webhook delivery attempts since start by outcome (skipped: the webhook was off when its turn came).',
        type: 'counter',
        samples: [...ATTEMPT_OUTCOMES, 'skipped' as const].map((outcome) => ({
          labels: { outcome },
          value: counters.outcomes.get(outcome) ?? 0,
        })),
      },
      {
        name: 'linkdesk_sink_publishes_total',
        help: 'Broker sink publish attempts since start (add_sink) by sink kind and outcome.',
        type: 'counter',
        samples: SINK_KINDS.flatMap((kind) =>
          ATTEMPT_OUTCOMES.map((outcome) => ({
            labels: { kind, outcome },
            value: counters.sinks.get(`${kind}\u0000${outcome}`) ?? 0,
          })),
        ),
      },
      {
        name: 'linkdesk_webhook_reposts_total',
        help: 'Webhook posts since start that repeat a post under way when the app last stopped (the receiver may have it: deduplicate by X-Linkdesk-Event-Id).',
        type: 'counter',
        samples: [{ value: counters.reposts }],
      },
      {
        name: 'linkdesk_webhook_outbox_depth',
        help: 'Events waiting for webhook delivery (retries included), all instances together.',
        type: 'gauge',
        samples: [{ value: gauges.outboxDepth() }],
      },
      {
        name: 'linkdesk_stream_clients',
        help: 'Clients connected to the live event stream.',
        type: 'gauge',
        samples: [{ value: gauges.streamClients() }],
      },
    ],
  }
}
