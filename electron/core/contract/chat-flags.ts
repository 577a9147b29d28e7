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
})

export type ChatFlags = Static<typeof ChatFlagsSchema>

export const CHAT_FLAG_NAMES = ['archived', 'pinned', 'muted', 'marked_unread'] as const

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
