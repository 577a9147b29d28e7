import { Type } from '@sinclair/typebox'
import { AppError } from '../../errors'
import { Nullable, OneOf } from '../../schema'
import type { EventService } from '../../events/event-service'
import { ATTEMPT_OUTCOMES, type AttemptOutcome } from '../../store/event-store'
import { isEventId } from '../../contract/event-id'
import { eventView } from '../../events/event-view'
import type { StreamSettings } from '../../contract/event-settings'
import { EVENT_NAMES, type EventName } from '../../contract/event-catalogue'
import { EventStreamClient } from '../../events/live-stream'
import type { MetricsRegistry } from '../../events/metrics'
import type { InstanceRegistry } from '../../instances/instance-registry'
import type { Logger } from '../../logger'
import type { WebhookView } from '../../shared-types'
import type { Principal } from '../../contract/principal'
import type { RoutePlugin } from '../build-api'
import type { RouteDoc } from '../openapi-route'
import { defineOperation, INSTANCE_ID_FIELD, type InstanceAccess, type Operation } from '../operation'
import { checks, readParams, type FieldSpec } from '../params'
import { BATCH_SIZE_FIELD } from './webhook-routes'

export interface EventRoutesDeps {
  registry: InstanceRegistry
  events: EventService
  metrics: MetricsRegistry
}

const optionalInstanceId = {
  ...INSTANCE_ID_FIELD,
  required: false,
  description: 'Only this instance.',
} as const satisfies FieldSpec
const eventId = {
  type: 'string',
  required: true,
  maxLength: 26,
  description: 'The event id (event_id of the envelope).',
  example: '01JD5Q3R8M6W2V9T0K4N7XH1CZ',
  check: (value: string) => (isEventId(value) ? undefined : 'is not an event id.'),
} as const satisfies FieldSpec
const pageFields = {
  cursor: {
    type: 'string',
    maxLength: 26,
    description: 'next_cursor of the previous page.',
    check: (value: string) => (isEventId(value) ? undefined : 'is not a cursor from a previous page.'),
  },
  limit: { type: 'integer', minimum: 1, maximum: 500, description: 'Items per page (default 50).' },
  order: { type: 'string', enum: ['desc', 'asc'], description: 'desc (newest first, default) or asc.' },
  since: { type: 'integer', minimum: 0, description: 'From this time on (unix seconds, inclusive).' },
  until: { type: 'integer', minimum: 0, description: 'Up to this time (unix seconds, inclusive).' },
} as const satisfies Record<string, FieldSpec>

const MESSAGE = Type.String()
const NEXT_CURSOR = Nullable(
  Type.String({ description: 'Give it as `cursor` for the next page; null on the last.' }),
)

/** An entry of the event log: the event (any of `Event`) and where its delivery to the instance's webhook stands. */
const LoggedEventSchema = Type.Unsafe<Record<string, unknown>>({
  allOf: [
    { $ref: '#/components/schemas/Event' },
    Type.Object({
      delivery: Type.Object({
        status: OneOf(['pending', 'delivered', 'failed', 'skipped'], {
          description: 'Waiting or retrying, delivered, given up, or not sent (webhook off).',
        }),
        attempts: Type.Integer({ minimum: 0, description: 'Attempts of the latest delivery.' }),
        last_attempt_at: Nullable(Type.String({ description: 'ISO 8601.' })),
        last_status_code: Nullable(Type.Integer()),
        last_error: Nullable(Type.String()),
      }),
    }),
  ],
})

/** One webhook delivery attempt (the event store's DeliveryAttempt). */
const DeliveryAttemptSchema = Type.Object({
  delivery_id: Type.String(),
  event_id: Type.String(),
  instance_id: Type.String(),
  webhook_id: Nullable(Type.String({ description: 'The added webhook; null: the instance’s own.' })),
  event: OneOf(EVENT_NAMES),
  attempt: Type.Integer({ minimum: 1, description: '1 for the first attempt of a delivery.' }),
  attempted_at: Type.String({ description: 'ISO 8601.' }),
  url: Type.String(),
  status_code: Nullable(Type.Integer({ description: 'null when no answer came.' })),
  latency_ms: Type.Number({ minimum: 0 }),
  outcome: OneOf(ATTEMPT_OUTCOMES),
  error: Nullable(Type.String()),
})

/**
 * Whether a caller may see events and attempts of an instance owned by `owner`: the window and a token reaching
 * all instances see every one; a token with a chosen reach, those of its own instances, or every one of the
 * instance it named when it may use that instance (`named`).
 */
export function visibleTo(principal: Principal, named = false): (owner: string | null) => boolean {
  if (principal.kind === 'operator') return () => true
  if (principal.kind === 'token') {
    if (principal.reach === 'all' || named) return () => true
    return (owner) => owner === principal.tokenId
  }
  return () => false
}

/** Whether the caller named an instance that exists (and so, past instanceFilter, one it may use). */
function namesLiveInstance(registry: InstanceRegistry, id: string | undefined): boolean {
  return id !== undefined && registry.find(id) !== undefined
}

/**
 * An instance filter the caller may use: an existing instance must be theirs (instance_not_found otherwise);
 * the id of a destroyed one is accepted and its events are still filtered by owner.
 */
function instanceFilter(
  registry: InstanceRegistry,
  access: InstanceAccess,
  id: string | undefined,
  principal: Principal,
): string | undefined {
  if (id !== undefined && registry.find(id)) access(id, principal)
  return id
}

function pageOf(params: { cursor?: string; limit?: number; order?: string; since?: number; until?: number }) {
  return {
    cursor: params.cursor,
    limit: params.limit ?? 50,
    order: params.order === 'asc' ? ('asc' as const) : ('desc' as const),
    since: params.since,
    until: params.until,
  }
}

/** set_webhook (as the seed), the webhook secret, the event and delivery logs, redelivery, test events. */
export function eventOperations(deps: EventRoutesDeps & { access: InstanceAccess }): Operation[] {
  const { registry, events, access } = deps
  return [
    defineOperation({
      name: 'set_webhook',
      tag: 'Webhooks',
      summary: 'Set the URL that receives the instance’s events, and switch delivery on or off.',
      description:
        'While enable is false, events are still logged (and on the live stream) but not delivered, and they are ' +
        'not delivered later when it is switched on. Deliveries are signed with the instance’s webhook secret ' +
        '(get_webhook).',
      auth: 'token',
      instance: true,
      fields: {
        webhook_url: {
          type: 'string',
          required: true,
          maxLength: 2048,
          check: checks.httpUrl,
          description: 'http:// or https:// URL that receives a POST per event.',
          example: 'http://127.0.0.1:3000/webhook',
        },
        enable: { type: 'boolean', required: true, description: 'true or false.', example: true },
        batch_size: {
          ...BATCH_SIZE_FIELD,
          description: `${BATCH_SIZE_FIELD.description} Absent: unchanged.`,
        },
      },
      answer: { message: Type.String() },
      example: { status: 'success', message: 'Webhook saved and enabled' },
      handle: async ({ params, instance }) => {
        await events.changeWebhook(instance.id, ({ batchSize: current, ...webhook }) => {
          const batchSize = params.batch_size ?? current ?? 1
          return {
            ...webhook,
            url: params.webhook_url,
            enable: params.enable,
            ...(batchSize > 1 && { batchSize }),
          }
        })
        return { status: 'success', message: `Webhook saved and ${params.enable ? 'enabled' : 'disabled'}` }
      },
    }),
    defineOperation({
      name: 'get_webhook',
      tag: 'Webhooks',
      summary: 'The instance’s webhook: URL, whether it is on, and the secret that signs deliveries.',
      auth: 'token',
      instance: true,
      fields: {},
      answer: {
        message: MESSAGE,
        webhook: Type.Object({
          url: Nullable(Type.String()),
          enable: Type.Boolean(),
          secret: Type.String({ description: 'Signs deliveries.' }),
          batch_size: Type.Integer({ minimum: 1 }),
        }),
      },
      example: {
        status: 'success',
        message: 'Webhook settings',
        webhook: { url: 'http://127.0.0.1:3000/webhook', enable: true, secret: 'whsec_…', batch_size: 1 },
      },
      handle: ({ instance }) => {
        const { url, enable, secret, batchSize } = instance.webhook
        const webhook: WebhookView = { url, enable, secret, batch_size: batchSize ?? 1 }
        return { status: 'success', message: 'Webhook settings', webhook }
      },
    }),
    defineOperation({
      name: 'rotate_webhook_secret',
      tag: 'Webhooks',
      summary:
        'Replace the webhook secret; deliveries from now on (retries included) are signed with the new one.',
      auth: 'token',
      instance: true,
      fields: {},
      answer: { message: MESSAGE, secret: Type.String({ description: 'The new secret.' }) },
      example: {
        status: 'success',
        message: 'Webhook secret replaced: update your receiver',
        secret: 'whsec_…',
      },
      handle: async ({ instance }) => {
        const secret = await events.rotateWebhookSecret(instance.id)
        return { status: 'success', message: 'Webhook secret replaced: update your receiver', secret }
      },
    }),
    defineOperation({
      name: 'send_test_event',
      tag: 'Webhooks',
      summary: 'Send a webhook.test event to the instance’s webhook (it must be on).',
      auth: 'token',
      instance: true,
      fields: {},
      answer: { message: MESSAGE, event_id: Type.String({ description: 'The webhook.test event.' }) },
      example: { status: 'success', message: 'Test event queued for delivery', event_id: '01JD…' },
      handle: ({ instance }) => {
        const event = events.sendTestEvent(instance)
        return { status: 'success', message: 'Test event queued for delivery', event_id: event.event_id }
      },
    }),
    defineOperation({
      name: 'events',
      tag: 'Events',
      summary: 'The event log, newest first: filter by instance, event name and time; page with cursor.',
      auth: 'token',
      fields: {
        instance_id: optionalInstanceId,
        event: { type: 'string', enum: EVENT_NAMES, description: 'Only events with this name.' },
        ...pageFields,
      },
      answer: { message: MESSAGE, events: Type.Array(LoggedEventSchema), next_cursor: NEXT_CURSOR },
      example: {
        status: 'success',
        message: 'Events',
        events: [
          {
            event: 'connection.update',
            event_id: '01JD5Q3R8M6W2V9T0K4N7XH1CZ',
            instance_id: '609ACF283XXXX6F2E1B0A4C5',
            timestamp: '1732180000',
            data: { state: 'connected', previous_state: 'connecting', reason: null },
            delivery: { status: 'delivered', attempts: 1, last_attempt_at: '2024-11-21T09:06:40.123Z' },
          },
        ],
        next_cursor: null,
      },
      handle: async ({ params, principal }) => {
        await events.settled()
        const page = await events.reader.events(
          {
            instanceId: instanceFilter(registry, access, params.instance_id, principal),
            event: params.event as EventName | undefined,
            visible: visibleTo(principal, namesLiveInstance(registry, params.instance_id)),
          },
          pageOf(params),
        )
        return {
          status: 'success',
          message: 'Events',
          events: page.items.map(eventView),
          next_cursor: page.nextCursor,
        }
      },
    }),
    defineOperation({
      name: 'deliveries',
      tag: 'Events',
      summary: 'Webhook delivery attempts, newest first: filter by instance, event and outcome.',
      auth: 'token',
      fields: {
        instance_id: optionalInstanceId,
        event_id: { ...eventId, required: false, description: 'Only attempts to deliver this event.' },
        outcome: { type: 'string', enum: ATTEMPT_OUTCOMES, description: 'delivered, retrying or failed.' },
        webhook_id: {
          type: 'string',
          maxLength: 40,
          description:
            'Only attempts to this added webhook (add_webhook); `own`: only to the instance’s own webhook.',
        },
        ...pageFields,
      },
      answer: { message: MESSAGE, deliveries: Type.Array(DeliveryAttemptSchema), next_cursor: NEXT_CURSOR },
      example: {
        status: 'success',
        message: 'Deliveries',
        deliveries: [
          {
            delivery_id: '01JD5Q3R8QZ3K1V2B4N6M8P0RS',
            event_id: '01JD5Q3R8M6W2V9T0K4N7XH1CZ',
            instance_id: '609ACF283XXXX6F2E1B0A4C5',
            webhook_id: null,
            event: 'connection.update',
            attempt: 1,
            attempted_at: '2024-11-21T09:06:40.123Z',
            url: 'http://127.0.0.1:3000/webhook',
            status_code: 200,
            latency_ms: 3.2,
            outcome: 'delivered',
            error: null,
          },
        ],
        next_cursor: null,
      },
      handle: async ({ params, principal }) => {
        await events.settled()
        const page = await events.reader.deliveries(
          {
            instanceId: instanceFilter(registry, access, params.instance_id, principal),
            eventId: params.event_id,
            outcome: params.outcome as AttemptOutcome | undefined,
            ...(params.webhook_id === undefined
              ? {}
              : { webhookId: params.webhook_id === 'own' ? null : params.webhook_id }),
            visible: visibleTo(principal, namesLiveInstance(registry, params.instance_id)),
          },
          pageOf(params),
        )
        return {
          status: 'success',
          message: 'Deliveries',
          deliveries: page.items,
          next_cursor: page.nextCursor,
        }
      },
    }),
    defineOperation({
      name: 'redeliver',
      tag: 'Events',
      summary:
        'Deliver one logged event again to the instance’s webhook as it is now, or to one added webhook.',
      auth: 'token',
      instance: true,
      fields: {
        event_id: eventId,
        webhook_id: {
          type: 'string',
          maxLength: 40,
          description:
            'An added webhook (add_webhook) that takes this instance’s events; absent: the instance’s own.',
        },
      },
      answer: { message: MESSAGE, event_id: Type.String() },
      example: {
        status: 'success',
        message: 'Event queued for delivery',
        event_id: '01JD5Q3R8M6W2V9T0K4N7XH1CZ',
      },
      handle: async ({ params, instance }) => {
        await events.redeliver(instance.id, params.event_id, params.webhook_id)
        return { status: 'success', message: 'Event queued for delivery', event_id: params.event_id }
      },
    }),
    defineOperation({
      name: 'redeliver_failed',
      tag: 'Events',
      summary: 'Deliver again every event of the instance whose delivery failed, oldest first.',
      description:
        'To the instance’s own webhook; with webhook_id, to that added webhook: the events whose latest attempt to it failed (not those still waiting in its queue).',
      auth: 'token',
      instance: true,
      fields: {
        webhook_id: {
          type: 'string',
          maxLength: 40,
          description:
            'An added webhook (add_webhook) that takes this instance’s events; absent: the instance’s own.',
        },
      },
      answer: { message: MESSAGE, count: Type.Integer({ minimum: 0, description: 'Events queued again.' }) },
      example: { status: 'success', message: '3 failed events queued for delivery', count: 3 },
      handle: async ({ params, instance }) => {
        const count = await events.redeliverFailed(instance.id, params.webhook_id)
        return {
          status: 'success',
          message: `${count} failed event${count === 1 ? '' : 's'} queued for delivery`,
          count,
        }
      },
    }),
  ]
}

const streamFields = {
  instance_id: optionalInstanceId,
  event: { type: 'string', enum: EVENT_NAMES, description: 'Only events with this name.' },
  last_event_id: { ...eventId, required: false, description: 'Resume after this event (or Last-Event-ID).' },
  deliveries: { type: 'boolean', description: 'Also send `event: delivery` frames for each attempt.' },
} as const satisfies Record<string, FieldSpec>

const STREAM_DOC: RouteDoc = {
  tag: 'Events',
  summary: 'The live event stream (Server-Sent Events): each frame’s data is one Event.',
  description:
    'Frames are `id: <event_id>`, `event: <name>`, `data: <Event as JSON>`; with deliveries=true also `event: delivery` frames (a delivery attempt). The token may come in the query string (EventSource cannot set headers); a reconnecting client resumes after Last-Event-ID.',
  query: streamFields,
  answer: {
    contentTypes: ['text/event-stream'],
    description: 'Events as they happen, after the resumed ones.',
  },
}

const METRICS_DOC: RouteDoc = {
  tag: 'Service',
  summary: 'Metrics in the Prometheus text format.',
  answer: { contentTypes: ['text/plain'], description: 'Prometheus exposition format 0.0.4.' },
}

/**
 * `GET /api/v1/metrics` (Prometheus text, token required) and `GET /api/v1/stream`: the live event stream as
 * Server-Sent Events. The token comes from the query string
 * (EventSource cannot set headers) or Authorization; resumes after Last-Event-ID or last_event_id.
 */
export function streamAndMetricsRoutes(
  deps: EventRoutesDeps & { settings: StreamSettings; logger: Logger },
): RoutePlugin {
  const log = deps.logger.child({ module: 'live-stream' })
  return (app, { access, prefix }) => {
    const clients = new Set<EventStreamClient>()
    app.get(
      `${prefix}/stream`,
      { config: { auth: 'token', openapi: STREAM_DOC } },
      async (request, reply) => {
        const { principal } = request
        const params = readParams(streamFields, (request.query ?? {}) as Record<string, unknown>)
        const header = request.headers['last-event-id']
        const lastEventId = typeof header === 'string' && header !== '' ? header : params.last_event_id
        if (lastEventId !== undefined && !isEventId(lastEventId)) {
          throw new AppError('invalid_parameter', 'Last-Event-ID is not an event id.')
        }
        const filter = {
          instanceId: instanceFilter(deps.registry, access, params.instance_id, principal),
          event: params.event as EventName | undefined,
          visible: visibleTo(principal, namesLiveInstance(deps.registry, params.instance_id)),
        }
        const source = deps.events.streamSource
        const after = await source.start(lastEventId)
        reply.hijack()
        const client = new EventStreamClient({
          response: reply.raw,
          source,
          live: deps.events.live,
          filter,
          after,
          deliveries: params.deliveries ?? false,
          heartbeatMs: deps.settings.heartbeatMs,
          stallTimeoutMs: deps.settings.stallTimeoutMs,
          logger: log,
        })
        clients.add(client)
        reply.raw.on('close', () => clients.delete(client))
      },
    )
    // Prometheus scrapes with GET and reads text, so this is a route rather than a JSON operation.
    app.get(
      `${prefix}/metrics`,
      { config: { auth: 'token', openapi: METRICS_DOC } },
      async (_request, reply) => {
        reply.type('text/plain; version=0.0.4; charset=utf-8')
        return deps.metrics.render()
      },
    )
    app.addHook('preClose', async () => {
      for (const client of clients) client.close()
    })
  }
}
