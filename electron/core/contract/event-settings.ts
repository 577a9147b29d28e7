/** How webhooks are delivered: per-attempt timeout, retry backoff and when to give up. */
export interface WebhookSettings {
  /** Time allowed for one attempt (connect, send, answer), milliseconds. */
  timeoutMs: number
  /** Delay before the first retry; each further retry doubles it (with jitter), milliseconds. */
  backoffBaseMs: number
  /** Longest delay between two attempts, milliseconds. */
  backoffMaxMs: number
  /** Attempts per event before it is marked failed. */
  maxAttempts: number
  /** Age after which an event that still fails is marked failed, milliseconds. */
  maxAgeMs: number
}

/** How long the event and delivery logs are kept. */
export interface RetentionSettings {
  /** Events and attempts older than this are removed, days. */
  maxAgeDays: number
  /** At most this many events are kept (the oldest go first). */
  maxEvents: number
  /** At most this many delivery attempts are kept (the oldest go first). */
  maxDeliveries: number
  /** Time between two sweeps, milliseconds. */
  sweepIntervalMs: number
}

/** Live stream settings. */
export interface StreamSettings {
  /** Time between two heartbeat comments on an idle stream, milliseconds. */
  heartbeatMs: number
  /** A client that reads nothing for this long while its socket buffer is full is disconnected, milliseconds. */
  stallTimeoutMs: number
}

export interface EventSettings {
  webhook: WebhookSettings
  retention: RetentionSettings
  stream: StreamSettings
}

export const DEFAULT_EVENT_SETTINGS: EventSettings = {
  webhook: {
    timeoutMs: 10_000,
    backoffBaseMs: 2_000,
    backoffMaxMs: 30 * 60_000,
    maxAttempts: 20,
    maxAgeMs: 24 * 60 * 60_000,
  },
  retention: {
    maxAgeDays: 30,
    maxEvents: 100_000,
    maxDeliveries: 300_000,
    sweepIntervalMs: 60 * 60_000,
  },
  stream: { heartbeatMs: 15_000, stallTimeoutMs: 60_000 },
}

export type EventSettingsInput = {
  [S in keyof EventSettings]?: Partial<Record<keyof EventSettings[S], number | string>>
}

/** Thrown for a setting that is not a whole number above zero; config.ts turns it into a ConfigError. */
export class EventSettingsError extends Error {
  constructor(message: string) {
    super(message)
    this.name = 'EventSettingsError'
  }
}

function parseSection<T extends object>(
  section: string,
  defaults: T,
  input: Partial<Record<string, unknown>> = {},
): T {
  const result = { ...defaults } as Record<string, number>
  for (const [name, raw] of Object.entries(input)) {
    if (!(name in defaults)) throw new EventSettingsError(`Unknown setting ${section}.${name}.`)
    const value = typeof raw === 'number' ? raw : /^\d+$/.test(String(raw)) ? Number(raw) : NaN
    if (!Number.isSafeInteger(value) || value <= 0) {
      throw new EventSettingsError(
        `${section}.${name} must be a whole number above 0 (got ${JSON.stringify(raw)}).`,
      )
    }
    result[name] = value
  }
  return result as T
}

/** Validates the events part of the config: every value a whole number above zero. */
export function parseEventSettings(input: EventSettingsInput = {}): EventSettings {
  const webhook = parseSection('webhook', DEFAULT_EVENT_SETTINGS.webhook, input.webhook)
  if (webhook.backoffMaxMs < webhook.backoffBaseMs) {
    throw new EventSettingsError('webhook.backoffMaxMs must not be smaller than webhook.backoffBaseMs.')
  }
  return {
    webhook,
    retention: parseSection('retention', DEFAULT_EVENT_SETTINGS.retention, input.retention),
    stream: parseSection('stream', DEFAULT_EVENT_SETTINGS.stream, input.stream),
  }
}
