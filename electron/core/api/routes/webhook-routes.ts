import { Type } from '@sinclair/typebox'
import { Nullable } from '../../schema'
import { EVENT_NAMES } from '../../contract/event-catalogue'
import type { EventService } from '../../events/event-service'
import { WEBHOOK_BATCH_MAX, WEBHOOKS_PER_SCOPE, type WebhookRegistry } from '../../events/webhook-registry'
import type { InstanceRecord } from '../../store/settings-store'
import type { Principal } from '../../contract/principal'
import { defineOperation, INSTANCE_ID_FIELD, type InstanceAccess, type Operation } from '../operation'
import { checks, type FieldSpec } from '../params'

export interface WebhookRoutesDeps {
  webhooks: WebhookRegistry
  events: EventService
  access: InstanceAccess
}

const SAMPLE = {
  webhook_id: 'wh_Q2hhbmdlTWVQbGVh',
  instance_id: '609ACF283XXXX6F2E1B0A4C5',
  url: 'https://crm.example.com/hooks/whatsapp',
  enable: true,
  events: ['message.*', 'group.participants'],
  secret: 'whsec_…',
  batch_size: 1,
  created_at: 1795253914,
}

/** An added webhook (the webhook registry's WebhookView). */
const AddedWebhookSchema = Type.Object({
  webhook_id: Type.String(),
  instance_id: Nullable(Type.String({ description: 'null: global, for every instance of its token.' })),
  url: Type.String(),
  enable: Type.Boolean(),
  events: Type.Array(Type.String(), { description: 'Its event filter.' }),
  secret: Type.String({ description: 'Signs its deliveries.' }),
  batch_size: Type.Integer({ minimum: 1 }),
  created_at: Type.Integer({ description: 'Unix seconds.' }),
})

/** The batch_size of set_webhook, add_webhook and update_webhook. */
export const BATCH_SIZE_FIELD = {
  type: 'integer',
  minimum: 1,
  maximum: WEBHOOK_BATCH_MAX,
  description: `Events one POST may carry. 1 (the default): each POST's body is one event. 2–${WEBHOOK_BATCH_MAX}: each POST's body is a JSON array of the events waiting, in order (up to this many; one when only one waits), with \`x-linkdesk-event: batch\` and the events' ids, comma-separated, in \`x-linkdesk-event-id\`; the batch is answered, retried and logged as a whole, one attempt per event. For receivers that take hundreds of events a second.`,
  example: 1,
} as const satisfies FieldSpec

const EVENTS_FIELD = {
  type: 'list',
  maxItems: EVENT_NAMES.length,
  maxLength: 60,
  description:
    'Event names or patterns it receives (`message.*`, `group.*`, `*`); absent or `*`: every event. An unknown name is 400.',
  example: ['message.*', 'group.participants'],
} as const satisfies FieldSpec

const WEBHOOK_ID = {
  type: 'string',
  required: true,
  maxLength: 40,
  description: 'The webhook, as add_webhook or webhooks answered it.',
  example: SAMPLE.webhook_id,
} as const satisfies FieldSpec

const SCOPE_INSTANCE = {
  ...INSTANCE_ID_FIELD,
  required: false,
  description: 'The instance it is for; absent: a global webhook, for every instance of this token.',
} as const

/**
 * webhooks, add_webhook, update_webhook and remove_webhook: webhooks beside the instance's own (set_webhook),
 * several per instance and global ones per token, each with its own secret and event filter and its own
 * delivery queue.
 */
export function webhookOperations({ webhooks, events, access }: WebhookRoutesDeps): Operation[] {
  const instanceOf = (id: string | undefined, principal: Principal): InstanceRecord | undefined =>
    id === undefined ? undefined : access(id, principal)
  // A change to an instance's added webhook is a change to the instance, as one to its own webhook is.
  const announce = (instanceId: string | null) => {
    if (instanceId !== null) events.emit(instanceId, 'instance.updated', { changed: ['webhook'] })
  }
  return [
    defineOperation({
      name: 'webhooks',
      tag: 'Webhooks',
      summary: 'The webhooks added to an instance, or (without instance_id) the global ones.',
      description:
        'Each with its id, URL, switch, event filter and signing secret. The instance’s own webhook (set_webhook) is read with get_webhook.',
      auth: 'token',
      fields: { instance_id: SCOPE_INSTANCE },
      answer: { webhooks: Type.Array(AddedWebhookSchema) },
      example: { status: 'success', webhooks: [SAMPLE] },
      handle: ({ params, principal }) => ({
        status: 'success',
        webhooks: webhooks.list(principal, instanceOf(params.instance_id, principal)?.id ?? null),
      }),
    }),
    defineOperation({
      name: 'add_webhook',
      tag: 'Webhooks',
      summary: 'Add a webhook to an instance, or a global one for every instance of this token.',
      description: `Up to ${WEBHOOKS_PER_SCOPE} per instance and ${WEBHOOKS_PER_SCOPE} global ones per token. Each webhook has its own queue: events reach it in order, retried with backoff as the instance’s own webhook is, and a slow or failing one never delays another. Deliveries are signed with its own secret (answered here). A URL already used by another webhook of the same instance (or the instance’s own) is 409 conflict. Made from the window, a global webhook receives every instance’s events.`,
      auth: 'token',
      fields: {
        instance_id: SCOPE_INSTANCE,
        url: {
          type: 'string',
          required: true,
          maxLength: 2048,
          check: checks.httpUrl,
          description: 'http:// or https:// URL that receives a POST per event.',
          example: SAMPLE.url,
        },
        events: EVENTS_FIELD,
        enable: { type: 'boolean', description: 'On at once (default true).', example: true },
        batch_size: BATCH_SIZE_FIELD,
      },
      answer: { webhook: AddedWebhookSchema },
      example: { status: 'success', webhook: SAMPLE },
      handle: async ({ params, principal }) => {
        const instance = instanceOf(params.instance_id, principal)
        const webhook = await webhooks.add(principal, instance?.id ?? null, {
          url: params.url,
          events: params.events,
          enable: params.enable,
          batchSize: params.batch_size,
          ownUrl: instance?.webhook.url,
        })
        announce(webhook.instance_id)
        return { status: 'success', webhook }
      },
    }),
    defineOperation({
      name: 'update_webhook',
      tag: 'Webhooks',
      summary: 'Change a webhook’s URL, switch, event filter or batch size, or give it a new secret.',
      description:
        'Only what is given changes. A delivery waiting for its next retry is tried again at once (or dropped, if the webhook was switched off).',
      auth: 'token',
      fields: {
        webhook_id: WEBHOOK_ID,
        url: { type: 'string', maxLength: 2048, check: checks.httpUrl, description: 'The new URL.' },
        events: EVENTS_FIELD,
        enable: { type: 'boolean', description: 'On or off.', example: false },
        rotate_secret: { type: 'boolean', description: 'Replace the signing secret.', example: false },
        batch_size: BATCH_SIZE_FIELD,
      },
      answer: { webhook: AddedWebhookSchema },
      example: { status: 'success', webhook: { ...SAMPLE, enable: false } },
      handle: async ({ params, principal }) => {
        const current = webhooks.accessible(params.webhook_id, principal)
        const instance = current.instanceId ? instanceOf(current.instanceId, principal) : undefined
        const webhook = await webhooks.update(params.webhook_id, principal, {
          url: params.url,
          events: params.events,
          enable: params.enable,
          rotateSecret: params.rotate_secret,
          batchSize: params.batch_size,
          ownUrl: instance?.webhook.url,
        })
        events.addedWebhookChanged(webhook.webhook_id)
        announce(webhook.instance_id)
        return { status: 'success', webhook }
      },
    }),
    defineOperation({
      name: 'remove_webhook',
      tag: 'Webhooks',
      summary: 'Remove a webhook; what it had not delivered yet is dropped.',
      auth: 'token',
      fields: { webhook_id: WEBHOOK_ID },
      answer: { webhook_id: Type.String({ description: 'The webhook removed.' }) },
      example: { status: 'success', webhook_id: SAMPLE.webhook_id },
      handle: async ({ params, principal }) => {
        const { instanceId } = webhooks.accessible(params.webhook_id, principal)
        await webhooks.remove(params.webhook_id, principal)
        events.addedWebhookChanged(params.webhook_id)
        announce(instanceId)
        return { status: 'success', webhook_id: params.webhook_id }
      },
    }),
  ]
}
