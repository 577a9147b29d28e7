import { Type } from '@sinclair/typebox'
import { Nullable } from '../../schema'
import { EVENT_NAMES } from '../../contract/event-catalogue'
import type { EventService } from '../../events/event-service'
import { DEFAULT_EXCHANGE, DEFAULT_STREAM, SINK_KINDS } from '../../events/broker-sinks'
import { SINKS_PER_SCOPE, type SinkRegistry } from '../../events/sink-registry'
import { WEBHOOK_BATCH_MAX } from '../../events/webhook-registry'
import type { Principal } from '../../contract/principal'
import { defineOperation, INSTANCE_ID_FIELD, type InstanceAccess, type Operation } from '../operation'
import type { FieldSpec } from '../params'

export interface SinkRoutesDeps {
  sinks: SinkRegistry
  events: EventService
  access: InstanceAccess
}

const SAMPLE = {
  sink_id: 'sk_Q2hhbmdlTWVQbGVh',
  instance_id: '609ACF283XXXX6F2E1B0A4C5',
  kind: 'rabbitmq',
  url: 'amqp://linkdesk:***@rabbit.internal:5672/',
  exchange: DEFAULT_EXCHANGE,
  enable: true,
  events: ['message.*'],
  batch_size: 1,
  created_at: 1795253914,
}

/** A broker sink (the sink registry's SinkView). */
const SinkSchema = Type.Object({
  sink_id: Type.String(),
  instance_id: Nullable(Type.String({ description: 'null: global, for every instance of its token.' })),
  kind: Type.Union(
    SINK_KINDS.map((kind) => Type.Literal(kind)),
    { description: 'rabbitmq or nats.' },
  ),
  url: Type.String({ description: 'The broker’s address, its password shown as ***.' }),
  exchange: Type.Optional(Type.String({ description: 'rabbitmq: the topic exchange it publishes to.' })),
  stream: Type.Optional(Type.String({ description: 'nats: the JetStream stream that stores its messages.' })),
  enable: Type.Boolean(),
  events: Type.Array(Type.String(), { description: 'Its event filter.' }),
  batch_size: Type.Integer({ minimum: 1 }),
  created_at: Type.Integer({ description: 'Unix seconds.' }),
})

const SCOPE_INSTANCE = {
  ...INSTANCE_ID_FIELD,
  required: false,
  description: 'The instance it is for; absent: a global sink, for every instance of this token.',
} as const

const SINK_ID = {
  type: 'string',
  required: true,
  maxLength: 40,
  description: 'The sink, as add_sink or sinks answered it.',
  example: SAMPLE.sink_id,
} as const satisfies FieldSpec

/**
 * sinks, add_sink and remove_sink: broker sinks (RabbitMQ, NATS JetStream) beside the webhooks, fed from
 * the same outbox with the same event filter, order, retries and delivery log.
 */
export function sinkOperations({ sinks, events, access }: SinkRoutesDeps): Operation[] {
  const instanceOf = (id: string | undefined, principal: Principal) =>
    id === undefined ? undefined : access(id, principal)
  return [
    defineOperation({
      name: 'sinks',
      tag: 'Webhooks',
      summary: 'The broker sinks of an instance, or (without instance_id) the global ones.',
      description: 'Each with its id, kind, broker address (password shown as ***), switch and event filter.',
      auth: 'token',
      fields: { instance_id: SCOPE_INSTANCE },
      answer: { sinks: Type.Array(SinkSchema) },
      example: { status: 'success', sinks: [SAMPLE] },
      handle: ({ params, principal }) => ({
        status: 'success',
        sinks: sinks.list(principal, instanceOf(params.instance_id, principal)?.id ?? null),
      }),
    }),
    defineOperation({
      name: 'add_sink',
      tag: 'Webhooks',
      summary:
        'Publish an instance’s events (or, without instance_id, every instance’s of this token) to RabbitMQ or NATS.',
      description: `Up to ${SINKS_PER_SCOPE} per instance and ${SINKS_PER_SCOPE} global ones per token. A sink takes its events from the same durable outbox as the webhooks, with the same event filter, per-instance order, event ids and retries with backoff; each publish is an attempt in \`deliveries\` (webhook_id = the sink_id). rabbitmq: AMQP 0-9-1; declares the topic exchange (durable), publishes each event as a persistent JSON message with routing key \`<instance_id>.<event>\`, message id and \`x-linkdesk-event-id\` header = the event id, and waits for the broker’s publisher confirms before the event leaves the outbox. nats: JetStream; publishes to subject \`linkdesk.<instance_id>.<event>\` with the event id as message id (Nats-Msg-Id: the stream drops repeats within its duplicate window) and waits for the stream’s acknowledgement; each subject goes to the stream that captures it, whatever its name; \`LINKDESK\` (file storage, subjects \`linkdesk.>\`) is made only when none does; a sink given a stream of its own publishes there only, and its attempts name the stream that captures the subject instead. A rabbitmq user that may only write publishes into the operator’s exchange as it is; an exchange of another type or a missing permission is named in the attempts’ error. A broker that is down keeps the events in the outbox; they go, in order, once it is back. The address is checked here, not reached: an unreachable broker shows in the attempts.`,
      auth: 'token',
      fields: {
        instance_id: SCOPE_INSTANCE,
        kind: {
          type: 'string',
          required: true,
          enum: SINK_KINDS,
          description: 'rabbitmq or nats.',
          example: 'rabbitmq',
        },
        url: {
          type: 'string',
          required: true,
          maxLength: 2048,
          description:
            'The broker: amqp://user:password@host:5672/vhost (or amqps://) for rabbitmq; nats://user:password@host:4222, nats://token@host:4222 (or tls://) for nats. Never answered or logged with its password.',
          example: 'amqp://linkdesk:secret@rabbit.internal:5672',
        },
        exchange: {
          type: 'string',
          maxLength: 127,
          description: `rabbitmq: the topic exchange (declared durable if missing); default \`${DEFAULT_EXCHANGE}\`.`,
        },
        stream: {
          type: 'string',
          maxLength: 127,
          description: `nats: the JetStream stream (made if missing, capturing \`linkdesk.>\`); default \`${DEFAULT_STREAM}\`.`,
        },
        events: {
          type: 'list',
          maxItems: EVENT_NAMES.length,
          maxLength: 60,
          description:
            'Event names or patterns it receives (`message.*`, `group.*`, `*`); absent or `*`: every event. An unknown name is 400.',
          example: ['message.*'],
        },
        enable: { type: 'boolean', description: 'On at once (default true).', example: true },
        batch_size: {
          type: 'integer',
          minimum: 1,
          maximum: WEBHOOK_BATCH_MAX,
          description: `Events one attempt may publish together (each its own message, in order, confirmed together); 1 to ${WEBHOOK_BATCH_MAX}, default 1.`,
          example: 1,
        },
      },
      answer: { sink: SinkSchema },
      example: { status: 'success', sink: SAMPLE },
      handle: async ({ params, principal }) => {
        const instance = instanceOf(params.instance_id, principal)
        return {
          status: 'success',
          sink: await sinks.add(principal, instance?.id ?? null, {
            kind: params.kind,
            url: params.url,
            exchange: params.exchange,
            stream: params.stream,
            events: params.events,
            enable: params.enable,
            batchSize: params.batch_size,
          }),
        }
      },
    }),
    defineOperation({
      name: 'remove_sink',
      tag: 'Webhooks',
      summary: 'Remove a broker sink; what it had not published yet is dropped.',
      auth: 'token',
      fields: { sink_id: SINK_ID },
      answer: { sink_id: Type.String({ description: 'The sink removed.' }) },
      example: { status: 'success', sink_id: SAMPLE.sink_id },
      handle: async ({ params, principal }) => {
        await sinks.remove(params.sink_id, principal)
        events.addedWebhookChanged(params.sink_id)
        return { status: 'success', sink_id: params.sink_id }
      },
    }),
  ]
}
