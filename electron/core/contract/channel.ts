import { Type } from '@sinclair/typebox'
import { MediaInfoSchema, MESSAGE_TYPES } from './message'
import { Nullable, OneOf, type Static } from '../schema'

/** Where a channel's invite code opens it. */
export const CHANNEL_LINK_BASE = 'https://whatsapp.com/channel/'

/** A channel (WhatsApp newsletter) as answers show it. */
export const ChannelSchema = Type.Object({
  id: Type.String({ description: 'The channel id, `<digits>@newsletter`.' }),
  name: Type.String(),
  description: Type.String(),
  invite: Nullable(Type.String({ description: 'The invite code.' })),
  link: Nullable(Type.String({ description: `The invite link, \`${CHANNEL_LINK_BASE}<code>\`.` })),
  followers: Type.Integer({ minimum: 0 }),
  role: OneOf(['owner', 'admin', 'follower', 'guest'], { description: "This account's part in it." }),
  created_at: Nullable(Type.Integer({ description: 'Unix seconds.' })),
})
export type ChannelView = Static<typeof ChannelSchema>

/** A post in a channel, as answers and the `channel.post` event show it. */
export const ChannelPostSchema = Type.Object({
  channel_id: Type.String({ description: 'The channel id, `<digits>@newsletter`.' }),
  post_id: Nullable(
    Type.String({ description: "The channel's number of the post (server id): what react_channel names." }),
  ),
  message_id: Type.String({ description: "The id the author's device sent it under." }),
  timestamp: Type.String({ description: 'Unix seconds.' }),
  type: OneOf(MESSAGE_TYPES),
  text: Nullable(Type.String()),
  caption: Nullable(Type.String()),
  media: Nullable(MediaInfoSchema),
  reactions: Type.Array(Type.Object({ emoji: Type.String(), count: Type.Integer({ minimum: 0 }) }), {
    description: 'Counted by emoji (none on a post as it arrives).',
  }),
})
export type ChannelPostView = Static<typeof ChannelPostSchema>

export const CHANNEL_SAMPLE: ChannelView = {
  id: '120363401234567890@newsletter',
  name: 'Acme news',
  description: 'What is new at Acme',
  invite: 'AbCdEfGhIjKlMnOpQrStUv',
  link: `${CHANNEL_LINK_BASE}AbCdEfGhIjKlMnOpQrStUv`,
  followers: 2,
  role: 'owner',
  created_at: 1795253914,
}

export const CHANNEL_POST_SAMPLE: ChannelPostView = {
  channel_id: CHANNEL_SAMPLE.id,
  post_id: '100',
  message_id: '3EB0C431C26A1916E1A6',
  timestamp: '1795253914',
  type: 'text',
  text: 'Opening hours change on Monday',
  caption: null,
  media: null,
  reactions: [],
}
