import { Type } from '@sinclair/typebox'
import type { Config } from '../../config'
import type { ServiceSettingsView } from '../../shared-types'
import { OneOf } from '../../schema'
import { defineOperation, type Operation } from '../operation'

const count = (description: string) => Type.Number({ minimum: 0, description })

/** What `settings` answers (ServiceSettingsView). */
const ServiceSettingsSchema = Type.Object({
  network: OneOf(['whatsapp', 'sandbox', 'sandbox-url']),
  sandbox_control: Type.Boolean({ description: 'The sandbox control API answers under {base}/sandbox.' }),
  limits: Type.Object({
    body_bytes: count('Largest request body.'),
    text_chars: count('Longest text.'),
    media_bytes: count('Largest media file.'),
    media_fetch_ms: count('How long a media URL is fetched at most.'),
    requests_per_minute: count('Requests per minute per token.'),
    send_interval_ms: count('Pause between two sends of an instance.'),
    send_jitter_ms: count('Up to this much more, at random.'),
  }),
  webhook: Type.Object({
    timeout_ms: count('How long a delivery waits for the receiver.'),
    max_attempts: count('Attempts before a delivery fails.'),
    backoff_base_ms: count('The first retry’s wait.'),
    backoff_max_ms: count('The longest wait between retries.'),
  }),
  retention: Type.Object({
    max_age_days: count('Events older than this are dropped.'),
    max_events: count('Events kept at most.'),
    max_deliveries: count('Delivery attempts kept at most.'),
  }),
})

/** `settings`: the limits, pacing, webhook delivery and retention this server runs with, and its network. */
export function settingsOperations(config: Config, sandboxMounted: boolean): Operation[] {
  const { limits, events } = config
  const view: ServiceSettingsView = {
    network: config.network.kind,
    sandbox_control: sandboxMounted,
    limits: {
      body_bytes: limits.bodyBytes,
      text_chars: limits.textChars,
      media_bytes: limits.mediaBytes,
      media_fetch_ms: limits.mediaFetchMs,
      requests_per_minute: limits.requestsPerMinute,
      send_interval_ms: limits.sendIntervalMs,
      send_jitter_ms: limits.sendJitterMs,
    },
    webhook: {
      timeout_ms: events.webhook.timeoutMs,
      max_attempts: events.webhook.maxAttempts,
      backoff_base_ms: events.webhook.backoffBaseMs,
      backoff_max_ms: events.webhook.backoffMaxMs,
    },
    retention: {
      max_age_days: events.retention.maxAgeDays,
      max_events: events.retention.maxEvents,
      max_deliveries: events.retention.maxDeliveries,
    },
  }
  return [
    defineOperation({
      name: 'settings',
      tag: 'Service',
      summary:
        'The limits, send pacing, webhook delivery and log retention in effect, and the network in use.',
      description:
        'Read-only: they are set when the server starts. sandbox_control is true when the sandbox control API ' +
        'answers under {base}/sandbox (started with --sandbox).',
      auth: 'token',
      fields: {},
      answer: { message: Type.String(), settings: ServiceSettingsSchema },
      handle: () => ({ status: 'success', message: 'Settings', settings: view }),
    }),
  ]
}
