/** What the UI reads from the API: the core's shared answer shapes, plus the envelopes around them. */
import type {
  DeliveryAttemptView,
  InstanceAccountView,
  InstanceView,
  LoggedEventView,
  SandboxAccountView,
  SandboxInboxEntryView,
  ServiceSettingsView,
  TokenInfoView,
  UploadView,
  WebhookView,
  ChatSummaryView,
  ContactSummaryView,
  GroupDetailView,
  GroupSummaryView,
  CommunitySummaryView,
  ChannelView,
  ChannelPostView,
  MessageView,
  MessageTickView,
} from '../../../electron/core/shared-types'

export type {
  AddedWebhookView,
  DeliveryAttemptView,
  DeliveryStatusView,
  EventEnvelopeView,
  LoggedEventView,
  QrUpdateData,
  SandboxAccountView,
  SandboxInboxEntryView,
  ServiceSettingsView,
  UploadView,
  WebhookView,
} from '../../../electron/core/shared-types'

export type TokenInfo = TokenInfoView
export type InstanceAccount = InstanceAccountView
export type InstanceSummary = InstanceView

export interface TokenList {
  tokens: TokenInfo[]
}

export interface CreatedToken {
  token: string
  info: TokenInfo
}

export interface ChatList {
  chats: ChatSummaryView[]
}

export type { MessageView, MessageTickView }

/** A page of one chat's messages, newest first, with the ticks of its own messages (chat_messages). */
export interface ChatMessagePage {
  messages: MessageView[]
  next_cursor: string | null
  starred: string[]
  statuses: Record<string, MessageTickView>
}

/** What send_message answers: the new message's key. */
export interface SentMessage {
  message: { key: { id: string; remoteJid: string; fromMe: boolean } }
}

export interface ContactList {
  contacts: ContactSummaryView[]
}

export type { GroupSummaryView }

export interface GroupList {
  groups: GroupSummaryView[]
}

export interface GroupAnswer {
  group: GroupDetailView
}

export interface CommunityList {
  communities: CommunitySummaryView[]
}

export interface ChannelList {
  channels: ChannelView[]
}

export interface ChannelPostList {
  posts: ChannelPostView[]
}

export interface InstanceList {
  instances: InstanceSummary[]
}

export interface InstanceAnswer {
  instance: InstanceSummary
}

export interface LoginAnswer {
  expires_at: number
}

/** Who may use an instance: the tokens reaching all instances, and those chosen for it. */
export interface InstanceAccessAnswer {
  access: {
    instance_id: string
    token_ids: string[]
    tokens: Array<TokenInfo & { by: 'all' | 'chosen' }>
  }
}

export interface EventPage {
  events: LoggedEventView[]
  next_cursor: string | null
}

export interface DeliveryPage {
  deliveries: DeliveryAttemptView[]
  next_cursor: string | null
}

export interface WebhookAnswer {
  webhook: WebhookView
}

export interface SettingsAnswer {
  settings: ServiceSettingsView
}

export type UploadAnswer = UploadView

export interface SandboxAccounts {
  accounts: SandboxAccountView[]
}

export interface SandboxInbox {
  messages: SandboxInboxEntryView[]
}
