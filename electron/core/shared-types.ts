/**
 * The API's answer shapes that its first client, the window, reads. Type definitions only: the renderer may
 * import this file (and nothing else) from the core. Each shape is defined once, where the core makes it;
 * this file only gives the window its names.
 */
import type { DeliveryAttempt, DeliveryStatus } from './store/event-store'
import type { EventData, EventName } from './contract/event-catalogue'
import type { EventView } from './events/event-view'
import type { LinkdeskEvent } from './contract/events'
import type { SandboxAccountInfo, SandboxInboxEntry } from '@linkdesk/sandbox'
import type { InstanceRecord } from './store/settings-store'
import type { TokenInfo } from './tokens/token-service'

export type { InstanceAccountView, InstanceView } from './instances/instance-view'
export type {
  ListedChat as ChatSummaryView,
  ContactSummary as ContactSummaryView,
} from './messages/chat-book'
export type { LinkdeskMessage as MessageView, DeliveryStatus as MessageTickView } from './contract/message'
export type { GroupSummary as GroupSummaryView, GroupView as GroupDetailView } from './contract/group'
export type { CommunitySummary as CommunitySummaryView } from './contract/community'
export type { ChannelView, ChannelPostView } from './contract/channel'
export type { WebhookView as AddedWebhookView } from './events/webhook-registry'
export type {
  FormField as KindFormFieldView,
  KindForm as KindFormView,
  KindsForWindow as KindsView,
  SummaryRule as KindSummaryView,
} from './contract/kinds'

/** An access token as the admin API lists it: never its value; with the instances a chosen reach reaches. */
export type TokenInfoView = TokenInfo & { instance_ids: string[] }

/** The event names of the event catalogue. */
export type EventNameView = EventName

/** The one envelope every event has, on webhooks, on the live stream and in the event log. */
export type EventEnvelopeView = LinkdeskEvent

/** The data of a qr.update event. */
export type QrUpdateData = EventData<'qr.update'>

/** Where an event stands with its webhook. */
export type DeliveryStatusView = DeliveryStatus

/** An event as the `events` operation lists it. */
export type LoggedEventView = EventView

/** One webhook delivery attempt, from the `deliveries` operation and `event: delivery` stream frames. */
export type DeliveryAttemptView = DeliveryAttempt

/** An instance's webhook as `get_webhook` answers it; batch_size: events one POST may carry. */
export type WebhookView = Omit<InstanceRecord['webhook'], 'batchSize'> & { batch_size: number }

/** A file stored by `POST /uploads` for a later send_message. */
export interface UploadView {
  upload_id: string
  /** The address to pass as media_url. */
  url: string
  size: number
  expires_at: number
}

/** A simulated account of the sandbox (`GET /sandbox/accounts`). */
export type SandboxAccountView = SandboxAccountInfo

/** A message as a simulated account received it (`GET /sandbox/accounts/{phone}/messages`). */
export type SandboxInboxEntryView = SandboxInboxEntry

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
