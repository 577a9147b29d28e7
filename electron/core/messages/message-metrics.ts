import type { EventName } from '../contract/event-catalogue'
import type { EventSink } from '../contract/events'
import type { MetricsProvider } from '../contract/metrics'

/** Messages counted since start, as the events that announce them go out. */
export interface MessageCounters {
  received: number
  sent: number
}

/** Wraps the event sink so every message.received and message.sent is also counted. */
export function countingSink(sink: EventSink, counters: MessageCounters): EventSink {
  const count = (event: EventName): void => {
    if (event === 'message.received') counters.received += 1
    else if (event === 'message.sent') counters.sent += 1
  }
  return {
    emit(instanceId, event, data) {
      count(event)
      return sink.emit(instanceId, event, data)
    },
    async emitForMessage(instanceId, messageId, event, data) {
      const emitted = await sink.emitForMessage(instanceId, messageId, event, data)
      if (emitted) count(event)
      return emitted
    },
    durable: () => sink.durable(),
  }
}

/** Messages sent and received, and sends waiting in the per-instance queues, for GET /api/v1/metrics. */
export function messageMetricsProvider(counters: MessageCounters, queueDepth: () => number): MetricsProvider {
  return {
    collect: () => [
      {
        name: 'linkdesk_messages_received_total',
        help: 'Messages received by the linked accounts since start.',
        type: 'counter',
        samples: [{ value: counters.received }],
      },
      {
        name: 'linkdesk_messages_sent_total',
        help: 'Messages sent by the linked accounts (from the API or the phone) since start.',
        type: 'counter',
        samples: [{ value: counters.sent }],
      },
      {
        name: 'linkdesk_send_queue_depth',
        help: 'Sends waiting in the per-instance send queues.',
        type: 'gauge',
        samples: [{ value: queueDepth() }],
      },
    ],
  }
}
