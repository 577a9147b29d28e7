/**
 * The API's answer shapes that its first client, the window, reads. Type definitions only: the renderer may
 * import this file (and nothing else) from the core, and the core may use these shapes for its answers.
 */

import type { EventName } from './events/event-catalogue'
import type { InstanceState } from './instances/instance-status'

/** The instance states of design §5. */
export type InstanceStateName = InstanceState

/** The linked account of an instance. */
export interface InstanceAccountView {
  /** `<phone>:<device>@s.whatsapp.net` */
  id: string
  /** Digits with country code. */
  number: string
  name: string | null
  /** A `data:` URI or an address of this server; empty when there is no picture. */
  avatar: string
}

/** The last connection problem of an instance; times are Unix seconds. */
export interface InstanceErrorView {
  code: number | null
  cause: string
  message: string
  at: number | null
}

/** One instance as the `instances` and `instance` operations answer it; times are Unix seconds. */
export interface InstanceView {
  instance_id: string
  created_at: number | null
  state: InstanceStateName
  /** Why it is in that state, e.g. waiting_for_scan, qr_expired, retrying. */
  cause: string
  since: number | null
  linked: boolean
  account: InstanceAccountView | null
  last_error: InstanceErrorView | null
  /** When the next automatic reconnect happens (disconnected and retrying). */
  next_retry_at: number | null
  /** When the QR code shown now expires (state qr). */
  qr_expires_at: number | null
}

/** An access token as the admin API lists it: never its value. */
export interface TokenInfoView {
  id: string
  label: string
  createdAt: number
  source: 'env' | 'ui'
}

/** The event names of the event catalogue. */
export type EventNameView = EventName

/** The one envelope every event has, on webhooks, on the live stream and in the event log. */
export interface EventEnvelopeView {
  event: EventNameView
  event_id: string
  instance_id: string
  /** Unix seconds, as a string. */
  timestamp: string
  data: Record<string, unknown>
}

/** The data of a qr.update event. */
export interface QrUpdateData {
  /** `data:image/png;base64,...` */
  qr: string
  /** The text the QR image encodes (what a phone reads when it scans). */
  qr_text: string
  /** Unix seconds. */
  expires_at: number
  count: number
}

/** Where an event stands with its webhook. */
export type DeliveryStatusView = 'pending' | 'delivered' | 'failed' | 'skipped'

/** The delivery summary the event log keeps with each event. */
export interface EventDeliveryView {
  status: DeliveryStatusView
  attempts: number
  /** ISO 8601. */
  last_attempt_at: string | null
  last_status_code: number | null
  last_error: string | null
}

/** An event as the `events` operation lists it. */
export type LoggedEventView = EventEnvelopeView & { delivery: EventDeliveryView }

export type AttemptOutcomeView = 'delivered' | 'retrying' | 'failed'

/** One webhook delivery attempt, from the `deliveries` operation and `event: delivery` stream frames. */
export interface DeliveryAttemptView {
  delivery_id: string
  event_id: string
  instance_id: string
  event: EventNameView
  attempt: number
  /** ISO 8601. */
  attempted_at: string
  url: string
  /** null when no answer came (network error, timeout). */
  status_code: number | null
  latency_ms: number
  outcome: AttemptOutcomeView
  error: string | null
}

/** An instance's webhook as `get_webhook` answers it. */
export interface WebhookView {
  url: string | null
  enable: boolean
  secret: string
}

/** A file stored by `POST /uploads` for a later send_message. */
export interface UploadView {
  upload_id: string
  /** The address to pass as media_url. */
  url: string
  size: number
  expires_at: number
}

/** A simulated account of the sandbox (`GET /sandbox/accounts`). */
export interface SandboxAccountView {
  phone: string
  jid: string
  lid: string
  name: string
  autoReply: 'echo' | null
  linkedDevices: number[]
}

/** A message as a simulated account received it (`GET /sandbox/accounts/{phone}/messages`). */
export interface SandboxInboxEntryView {
  id: string
  from: string
  chat: string
  type: string
  text: string | null
  caption: string | null
  filename: string | null
  mimetype: string | null
  size: number | null
  sha256: string | null
  ptt: boolean
  videoNote: boolean
  viewOnce: boolean
  seconds: number | null
  waveform: number[] | null
  location: { latitude: number; longitude: number; name: string | null; address: string | null } | null
  contacts: Array<{ name: string; phones: string[]; vcard: string }> | null
  quotedId: string | null
  mentions: string[]
  linkPreview: { url: string; title: string | null; description: string | null } | null
  timestamp: number
}

/** What the `settings` operation answers: fixed when the server starts. */
export interface ServiceSettingsView {
  network: 'whatsapp' | 'sandbox' | 'sandbox-url'
  /** The sandbox control API answers under {base}/sandbox. */
  sandbox_control: boolean
  limits: {
    body_bytes: number
    text_chars: number
    media_bytes: number
    media_fetch_ms: number
    requests_per_minute: number
    send_interval_ms: number
    send_jitter_ms: number
  }
  webhook: { timeout_ms: number; max_attempts: number; backoff_base_ms: number; backoff_max_ms: number }
  retention: { max_age_days: number; max_events: number; max_deliveries: number }
}
