import type { Config } from '../../config'
import type { ServiceSettingsView } from '../../shared-types'
import { defineOperation, type Operation } from '../operation'

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
      handle: () => ({ status: 'success', message: 'Settings', settings: view }),
    }),
  ]
}
