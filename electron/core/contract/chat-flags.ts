import { Type } from '@sinclair/typebox'
import { Nullable, OneOf, type Static } from '../schema'

/** What the account's app state shows beside a chat, as chats and chat.updated carry it. */
export const ChatFlagsSchema = Type.Object({
  archived: Type.Boolean(),
  pinned: Type.Boolean({ description: 'The network lets an account pin 3 chats.' }),
  muted: Type.Boolean(),
  muted_until: Nullable(
    Type.Integer({ description: 'Unix seconds the mute ends; null when not muted or muted with no end.' }),
  ),
  marked_unread: Type.Boolean({
    description: 'Marked unread by hand (on the phone, another device, or mark_chat_unread).',
  }),
  disappearing_timer: Type.Integer({
    description:
      'Seconds the chat’s new messages last (86400: 24 hours, 604800: 7 days, 7776000: 90 days); 0 when off.',
  }),
})

export type ChatFlags = Static<typeof ChatFlagsSchema>

export const CHAT_FLAG_NAMES = ['archived', 'pinned', 'muted', 'marked_unread', 'disappearing_timer'] as const

/** The disappearing-messages timers the apps offer, in seconds (0: off). */
export const DISAPPEARING_TIMERS = [0, 86400, 604800, 7776000] as const

/** The flag names a chat.updated's `changed` lists. */
export type ChatFlagName = (typeof CHAT_FLAG_NAMES)[number]

/** chat.updated's data: the chat's flags now, and which changed. */
export const ChatUpdatedEventSchema = Type.Composite([
  Type.Object({ chat: Type.String({ description: 'The chat id.' }) }),
  ChatFlagsSchema,
  Type.Object({ changed: Type.Array(OneOf(CHAT_FLAG_NAMES), { minItems: 1 }) }),
])

/** message.starred's data: a message starred or unstarred in the account's app state. */
export const MessageStarredEventSchema = Type.Object({
  id: Type.String({ description: 'The message id.' }),
  chat: Type.String({ description: 'The chat id.' }),
  starred: Type.Boolean(),
})

/** chat.cleared's and chat.deleted's data: a chat's messages removed for this account, and by whom. */
export const ChatRemovedEventSchema = Type.Object({
  chat: Type.String({ description: 'The chat id.' }),
  source: OneOf(['api', 'phone'] as const, {
    description: '`api`: through this instance; `phone`: on the phone or another linked device.',
  }),
  messages_removed: Type.Integer({
    minimum: 0,
    description: 'How many of the chat’s stored messages Linkdesk removed.',
  }),
})
