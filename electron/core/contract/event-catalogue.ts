import { Type } from '@sinclair/typebox'
import {
  GROUP_EVENT_EXAMPLES,
  GroupJoinedEventSchema,
  GroupParticipantsEventSchema,
  GroupUpdatedEventSchema,
} from './group'
import { COMMUNITY_EVENT_EXAMPLES, CommunityLinkEventSchema } from './community'
import { INSTANCE_STATES } from './instance-state'
import { ChatRemovedEventSchema, ChatUpdatedEventSchema, MessageStarredEventSchema } from './chat-flags'
import { ChatLabeledEventSchema, LabelUpdatedEventSchema, MessageLabeledEventSchema } from './labels'
import { CHANNEL_POST_SAMPLE, ChannelPostSchema } from './channel'
import {
  DeletionSchema,
  EditSchema,
  CallOfferSchema,
  LinkdeskMessageSchema,
  PollVoteSchema,
  PresenceUpdateSchema,
  ReactionSchema,
  StatusUpdateSchema,
} from './message'
import { Nullable, OneOf, schemaViolations, type Static, type TSchema } from '../schema'

/** The fields of an instance whose change is an `instance.updated` event. */
export const INSTANCE_FIELDS = ['account', 'webhook', 'calls', 'name', 'behaviours', 'proxy'] as const

/** A received text message, as the message events carry it; the tests build their messages on it. */
export const SAMPLE_MESSAGE = {
  id: '3EB0C4F1A2B3C4D5E6F7',
  chat: '15550002222@s.whatsapp.net',
  is_group: false,
  from_me: false,
  sender: '15550002222@s.whatsapp.net',
  sender_phone: '15550002222',
  sender_lid: '123456789012345@lid',
  push_name: 'Bob',
  type: 'text',
  text: 'Hello',
  caption: null,
  media: null,
  view_once: false,
  location: null,
  contacts: null,
  mentions: [],
  link_preview: null,
  quoted: null,
  timestamp: '1795253914',
} as const

/** Who acted on a message, as the action events carry it. */
const ACT_SAMPLE = {
  chat: SAMPLE_MESSAGE.chat,
  is_group: false,
  from_me: false,
  sender: SAMPLE_MESSAGE.sender,
  sender_phone: SAMPLE_MESSAGE.sender_phone,
  sender_lid: SAMPLE_MESSAGE.sender_lid,
  push_name: SAMPLE_MESSAGE.push_name,
  timestamp: '1795253974',
} as const

interface EventSpec {
  /** What happened, for the README, the OpenAPI document and the window. */
  description: string
  /** After it, an instance's listed view (`instances`, `instance`) may read differently. */
  changesInstance: boolean
  data: TSchema
  example: Record<string, unknown>
}

/**
 * Every event Linkdesk sends, with the shape of its `data`: the one place an event is declared. The
 * EventSink's types, the runtime check of each emitted event, the OpenAPI schemas and the window's event
 * filter all come from here.
 */
export const EVENT_CATALOGUE = {
  'connection.update': {
    description: 'The instance changed state (design §5); `reason` is the new state’s cause.',
    changesInstance: true,
    data: Type.Object({
      state: OneOf(INSTANCE_STATES),
      previous_state: OneOf(INSTANCE_STATES),
      reason: Nullable(Type.String()),
    }),
    example: { state: 'connected', previous_state: 'connecting', reason: 'logged_in' },
  },
  'qr.update': {
    description: 'A new QR code to scan; it replaces the previous one.',
    changesInstance: false,
    data: Type.Object({
      qr: Type.String({ description: '`data:image/png;base64,...`' }),
      qr_text: Type.String({ description: 'The text the QR image encodes (what a phone reads).' }),
      expires_at: Type.Integer({ description: 'Unix seconds.' }),
      count: Type.Integer({ minimum: 1 }),
    }),
    example: { qr: 'data:image/png;base64,iVBORw0KGgo…', qr_text: '2@…', expires_at: 1795253974, count: 1 },
  },
  'message.received': {
    description: 'A message came in, live or queued while offline (once per message id).',
    changesInstance: false,
    data: Type.Composite([
      LinkdeskMessageSchema,
      Type.Object({ live: Type.Boolean({ description: 'false for messages queued while offline.' }) }),
    ]),
    example: { ...SAMPLE_MESSAGE, live: true },
  },
  'message.sent': {
    description: 'This account sent a message, through the API or from the phone.',
    changesInstance: false,
    data: Type.Composite([LinkdeskMessageSchema, Type.Object({ source: OneOf(['api', 'phone'] as const) })]),
    example: {
      ...SAMPLE_MESSAGE,
      from_me: true,
      sender: '15550001111@s.whatsapp.net',
      sender_phone: '15550001111',
      sender_lid: null,
      push_name: null,
      source: 'api',
    },
  },
  'message.status': {
    description: 'A message this account sent moved on: delivered, read, played or failed.',
    changesInstance: false,
    data: StatusUpdateSchema,
    example: {
      id: '3EB0C4F1A2B3C4D5E6F7',
      chat: '15550002222@s.whatsapp.net',
      status: 'delivered',
      recipient: null,
      recipient_phone: null,
      recipient_lid: null,
      error_code: null,
    },
  },
  'message.reaction': {
    description:
      'Someone (or this account: `from_me`) reacted to a message with an emoji, or took the reaction back (`removed`).',
    changesInstance: false,
    data: ReactionSchema,
    example: {
      ...ACT_SAMPLE,
      id: '3EB0D1E2F3A4B5C6D7E8',
      target_id: '3EB0C4F1A2B3C4D5E6F7',
      emoji: '👍',
      removed: false,
    },
  },
  'message.edited': {
    description: 'A text was changed by its sender (this account too: `from_me`); `text` is the new one.',
    changesInstance: false,
    data: EditSchema,
    example: { ...ACT_SAMPLE, id: '3EB0E2F3A4B5C6D7E8F9', target_id: '3EB0C4F1A2B3C4D5E6F7', text: 'Hello!' },
  },
  'message.deleted': {
    description: 'A message was deleted for everyone by its sender (this account too: `from_me`).',
    changesInstance: false,
    data: DeletionSchema,
    example: { ...ACT_SAMPLE, id: '3EB0F3A4B5C6D7E8F9A0', target_id: '3EB0C4F1A2B3C4D5E6F7' },
  },
  'presence.update': {
    description:
      'A contact this instance subscribed to (subscribe_presence) came online or went offline, or is typing, recording or paused in a chat.',
    changesInstance: false,
    data: PresenceUpdateSchema,
    example: {
      chat: '15550002222@s.whatsapp.net',
      participant: '15550002222@s.whatsapp.net',
      participant_phone: '15550002222',
      participant_lid: '48213557260001@lid',
      presence: 'typing',
      last_seen: null,
    },
  },
  'poll.vote': {
    description:
      'Someone voted on a poll this account sent (or changed their vote): the options picked and the running tally, from each voter’s latest vote. On a poll this instance has not stored (sent before the link, or from elsewhere) the vote cannot be read: `options` and `tally` are null.',
    changesInstance: false,
    data: PollVoteSchema,
    example: {
      ...ACT_SAMPLE,
      id: '3EB0A4B5C6D7E8F9A0B1',
      target_id: '3EB0C4F1A2B3C4D5E6F7',
      voter: '15550002222@s.whatsapp.net',
      options: ['Tuesday'],
      tally: [
        { option: 'Monday', votes: 0, voters: [] },
        { option: 'Tuesday', votes: 1, voters: ['15550002222@s.whatsapp.net'] },
      ],
    },
  },
  'call.received': {
    description:
      'Someone is calling the account (voice or video); reject it with reject_call, or let the instance reject every call (set_call_rejection).',
    changesInstance: false,
    data: CallOfferSchema,
    example: {
      id: '9A1C4E7B2D5F8A3C6E9B1D4F7A2C5E8B',
      from: '15550002222@s.whatsapp.net',
      from_phone: '15550002222',
      from_lid: '987654321098765@lid',
      video: false,
      group: false,
      group_id: null,
      offline: false,
      timestamp: '1795253914',
    },
  },
  'channel.post': {
    description:
      "A post arrived in a channel the account follows, or that it owns and posted to from another device (the phone). Posts carry no delivery or read statuses; a post's file is downloaded at its media.download_url.",
    changesInstance: false,
    data: ChannelPostSchema,
    example: CHANNEL_POST_SAMPLE,
  },
  'status.received': {
    description:
      'A contact posted a status update (text, image, video or voice) that this account may see: only while the instance’s `ignore_status` is off; `status_look` carries its background and font (null when plain). Stored in chat `status@broadcast` (statuses); view_status sends its poster the read receipt.',
    changesInstance: false,
    data: Type.Composite([
      LinkdeskMessageSchema,
      Type.Object({ live: Type.Boolean({ description: 'false for updates queued while offline.' }) }),
    ]),
    example: {
      ...SAMPLE_MESSAGE,
      id: '3EB0B5C6D7E8F9A0B1C2',
      chat: 'status@broadcast',
      text: 'Out of office today',
      status_look: { background_color: '#FF1E6F5C', font: 1 },
      live: true,
    },
  },
  'status.sent': {
    description:
      'This account posted a status update: through the API (post_status, with the chat ids it went to) or from the phone (`recipients` null).',
    changesInstance: false,
    data: Type.Composite([
      LinkdeskMessageSchema,
      Type.Object({
        source: OneOf(['api', 'phone'] as const),
        recipients: Nullable(Type.Array(Type.String(), { description: 'The chat ids it went to.' })),
      }),
    ]),
    example: {
      ...SAMPLE_MESSAGE,
      id: '3EB0C6D7E8F9A0B1C2D3',
      chat: 'status@broadcast',
      from_me: true,
      sender: '15550001111@s.whatsapp.net',
      sender_phone: '15550001111',
      sender_lid: null,
      push_name: null,
      text: 'Open until 6 pm today',
      source: 'api',
      recipients: ['15550002222@s.whatsapp.net'],
    },
  },
  'chat.updated': {
    description:
      'A chat was archived or unarchived, pinned or unpinned, muted or unmuted, marked unread or read, or its disappearing-messages timer changed: through the API, on the phone or on another linked device (the account’s app state; the timer by a message in the chat). Carries the chat’s flags now and which changed.',
    changesInstance: false,
    data: ChatUpdatedEventSchema,
    example: {
      chat: '15550002222@s.whatsapp.net',
      archived: true,
      pinned: false,
      muted: false,
      muted_until: null,
      marked_unread: false,
      disappearing_timer: 0,
      changed: ['archived'],
    },
  },
  'chat.cleared': {
    description:
      'A chat was cleared for this account: through the API (clear_chat), on the phone or on another linked device (the account’s app state). Linkdesk removed the chat’s stored messages up to the clear; its flags stay, and its next message brings it back to `chats`.',
    changesInstance: false,
    data: ChatRemovedEventSchema,
    example: { chat: '15550002222@s.whatsapp.net', source: 'api', messages_removed: 12 },
  },
  'chat.deleted': {
    description:
      'A chat was deleted for this account: through the API (delete_chat), on the phone or on another linked device (the account’s app state). Linkdesk removed the chat’s stored messages and its archive, pin, mute and unread flags; its next message brings it back to `chats`.',
    changesInstance: false,
    data: ChatRemovedEventSchema,
    example: { chat: '15550002222@s.whatsapp.net', source: 'phone', messages_removed: 12 },
  },
  'message.starred': {
    description:
      'A message was starred or unstarred: through the API (star_message, unstar_message), on the phone or on another linked device (the account’s app state).',
    changesInstance: false,
    data: MessageStarredEventSchema,
    example: { id: '3EB0C4F1A2B3C4D5E6F7', chat: '15550002222@s.whatsapp.net', starred: true },
  },
  'label.updated': {
    description:
      'A WhatsApp Business account’s label was created, renamed, recoloured or deleted: through the API (create_label, edit_label, delete_label; source api) or on the phone or another linked device (the account’s app state; source phone). A deleted label comes off every chat and message.',
    changesInstance: false,
    data: LabelUpdatedEventSchema,
    example: { id: '3', name: 'Paid', color: 4, deleted: false, source: 'phone' },
  },
  'chat.labeled': {
    description:
      'A label was put on a chat or taken off it (Business accounts): through the API (label_chat, unlabel_chat; source api) or on the phone or another linked device (source phone). Carries the ids of the chat’s labels now.',
    changesInstance: false,
    data: ChatLabeledEventSchema,
    example: {
      chat: '15550002222@s.whatsapp.net',
      label_id: '3',
      labeled: true,
      labels: ['1', '3'],
      source: 'phone',
    },
  },
  'message.labeled': {
    description:
      'A label was put on a message or taken off it (Business accounts): through the API (label_message, unlabel_message; source api) or on the phone or another linked device (source phone).',
    changesInstance: false,
    data: MessageLabeledEventSchema,
    example: {
      id: '3EB0C4F1A2B3C4D5E6F7',
      chat: '15550002222@s.whatsapp.net',
      label_id: '3',
      labeled: true,
      labels: ['3'],
      source: 'api',
    },
  },
  'group.participants': {
    description:
      'People joined a group the account is in, left it, were removed, or were made admin or no longer: by whom, when the network says.',
    changesInstance: false,
    data: GroupParticipantsEventSchema,
    example: GROUP_EVENT_EXAMPLES['group.participants'],
  },
  'group.updated': {
    description:
      "A group's subject, description, picture or settings (only admins send, only admins edit) changed: only what changed, and by whom.",
    changesInstance: false,
    data: GroupUpdatedEventSchema,
    example: GROUP_EVENT_EXAMPLES['group.updated'],
  },
  'group.joined': {
    description:
      'The account is in a new group: it made one (here or on the phone), someone made one with it, added it, or it joined by an invite. Carries the group with its members.',
    changesInstance: false,
    data: GroupJoinedEventSchema,
    example: GROUP_EVENT_EXAMPLES['group.joined'],
  },
  'community.linked': {
    description:
      'A group was linked to a community the account is in (here, on the phone or by another admin): its members joined the community and its announcement group, each told by group.participants.',
    changesInstance: false,
    data: CommunityLinkEventSchema,
    example: COMMUNITY_EVENT_EXAMPLES['community.linked'],
  },
  'community.unlinked': {
    description:
      'A group was unlinked from a community the account is in; its members stay in the community.',
    changesInstance: false,
    data: CommunityLinkEventSchema,
    example: COMMUNITY_EVENT_EXAMPLES['community.unlinked'],
  },
  'instance.created': {
    description:
      'An instance came to exist: by create_instance, or as the new id that destroy answers (`replaces` is the old id).',
    changesInstance: true,
    data: Type.Object({
      created_at: Type.Integer({ description: 'Unix seconds.' }),
      replaces: Nullable(Type.String({ description: 'The destroyed instance this one replaces.' })),
    }),
    example: { created_at: 1795253914, replaces: null },
  },
  'instance.updated': {
    description:
      'Listed fields of the instance changed other than its state: its account (name, avatar) or its webhook ' +
      '(URL, switch, secret). Read the new values with `instance` or `get_webhook`.',
    changesInstance: true,
    data: Type.Object({ changed: Type.Array(OneOf(INSTANCE_FIELDS), { minItems: 1 }) }),
    example: { changed: ['webhook'] },
  },
  'instance.logged_out': {
    description: 'The link is gone and its credentials wiped: a new scan is needed.',
    changesInstance: true,
    data: Type.Object({ reason: Type.String() }),
    example: { reason: 'device_removed' },
  },
  'instance.destroyed': {
    description:
      'The instance was destroyed (`destroyed`: its id is replaced, see instance.created) or deleted (`deleted`: delete_instance, nothing replaces it); sent to its webhook before its record disappears.',
    changesInstance: true,
    data: Type.Object({ reason: OneOf(['destroyed', 'deleted'] as const) }),
    example: { reason: 'destroyed' },
  },
  'webhook.test': {
    description: 'Sent by send_test_event to check a webhook receiver.',
    changesInstance: false,
    data: Type.Object({ message: Type.String() }),
    example: { message: 'Test event from Linkdesk' },
  },
} as const satisfies Record<string, EventSpec>

export type EventName = keyof typeof EVENT_CATALOGUE
export const EVENT_NAMES = Object.keys(EVENT_CATALOGUE) as EventName[]

/** The `data` of one event. */
export type EventData<E extends EventName> = Static<(typeof EVENT_CATALOGUE)[E]['data']>

/** Where `data` departs from the catalogue's shape for `event`, in words; empty when it conforms. */
export function contractViolations(event: EventName, data: unknown): string[] {
  const spec = EVENT_CATALOGUE[event] as EventSpec | undefined
  if (!spec) return [`${event} is not in the event catalogue`]
  return schemaViolations(spec.data, data)
}
