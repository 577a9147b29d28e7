import { Type } from '@sinclair/typebox'
import { Nullable, OneOf, type Static } from '../schema'

/** What a message holds, as Linkdesk names it. */
export const MESSAGE_TYPES = [
  'text',
  'image',
  'video',
  'audio',
  'document',
  'sticker',
  'location',
  'contact',
  'reaction',
  'poll',
  'group_invite',
  'unknown',
] as const
export type MessageType = (typeof MESSAGE_TYPES)[number]

/** Where a message stands on its way to the recipient (message.status events). */
export const DELIVERY_STATUSES = ['sent', 'delivered', 'read', 'played', 'failed'] as const
export type DeliveryStatus = (typeof DELIVERY_STATUSES)[number]

/** A media attachment; the bytes are fetched through `download_url` with the same access token. */
export const MediaInfoSchema = Type.Object({
  mimetype: Nullable(Type.String()),
  size: Nullable(Type.Integer({ description: 'Bytes.' })),
  filename: Nullable(Type.String({ description: 'Documents only.' })),
  sha256: Nullable(
    Type.String({ description: 'Hex SHA-256 of the plain content, as the network states it.' }),
  ),
  seconds: Nullable(Type.Number({ description: 'Audio and video length in seconds.' })),
  voice_note: Type.Boolean({ description: 'A voice note rather than an audio file.' }),
  video_note: Type.Boolean({ description: 'A round video note rather than a video.' }),
  download_url: Nullable(
    Type.String({ description: 'Where to download the file (GET, same access token as the API).' }),
  ),
})
export type MediaInfo = Static<typeof MediaInfoSchema>

/** A media attachment's facts before any is read: no file facts, no flags, no download address yet. */
export const NO_MEDIA_FACTS: MediaInfo = {
  mimetype: null,
  size: null,
  filename: null,
  sha256: null,
  seconds: null,
  voice_note: false,
  video_note: false,
  download_url: null,
}

/** How a file is sent: as a picture, a video, a sound, or a document (a file with a name). */
export type MediaKind = 'image' | 'video' | 'audio' | 'document'

/** A shared place. */
export const LocationInfoSchema = Type.Object({
  latitude: Type.Number({ description: 'Degrees.' }),
  longitude: Type.Number({ description: 'Degrees.' }),
  name: Nullable(Type.String()),
  address: Nullable(Type.String()),
})
export type LocationInfo = Static<typeof LocationInfoSchema>

/** A shared contact card: the name and numbers read from its vCard, and the vCard itself. */
export const ContactCardInfoSchema = Type.Object({
  name: Type.String(),
  phones: Type.Array(Type.String(), { description: 'Digits with country code.' }),
  vcard: Type.String(),
})
export type ContactCardInfo = Static<typeof ContactCardInfoSchema>

/** The preview a text shows for a link in it. */
export const LinkPreviewInfoSchema = Type.Object({
  url: Type.String(),
  title: Nullable(Type.String()),
  description: Nullable(Type.String()),
})
export type LinkPreviewInfo = Static<typeof LinkPreviewInfoSchema>

/** The message a reply refers to. */
export const QuotedMessageSchema = Type.Object({
  id: Type.String(),
  sender: Nullable(Type.String({ description: 'Who wrote the quoted message, when known.' })),
  type: OneOf(MESSAGE_TYPES),
  text: Nullable(Type.String()),
})
export type QuotedMessage = Static<typeof QuotedMessageSchema>

/**
 * A message as Linkdesk shows it in events and answers: who, where, what; never Baileys' own shapes and
 * never media keys.
 */
/** An invitation to join a group (type `group_invite`): what join_group needs. */
export const GroupInviteInfoSchema = Type.Object({
  group_id: Type.String(),
  subject: Type.String(),
  code: Type.String({ description: 'The invite code: give it to join_group.' }),
  expiration: Nullable(Type.Integer({ description: 'Unix seconds after which the code stops working.' })),
})

/** How a status update looks in the apps: its background and its text's font. */
export const StatusLookSchema = Type.Object({
  background_color: Nullable(
    Type.String({
      description: 'The background, `#AARRGGBB` (a text or voice status).',
      example: '#FF1F6FEB',
    }),
  ),
  font: Nullable(
    Type.Integer({ description: 'The font of a text status: 0 to 5, as post_status takes it.' }),
  ),
})

export const LinkdeskMessageSchema = Type.Object({
  id: Type.String(),
  chat: Type.String({
    description: 'The chat: a contact (`<phone>@s.whatsapp.net` or `<lid>@lid`) or a group (`<id>@g.us`).',
  }),
  is_group: Type.Boolean(),
  from_me: Type.Boolean(),
  sender: Type.String({ description: 'Who wrote it: the contact, the group member, or this account.' }),
  sender_phone: Nullable(Type.String({ description: "The sender's phone number (digits) when known." })),
  sender_lid: Nullable(Type.String({ description: "The sender's LID (`<digits>@lid`) when known." })),
  push_name: Nullable(
    Type.String({ description: 'The name the sender set for themselves, when the network passed it on.' }),
  ),
  type: OneOf(MESSAGE_TYPES),
  text: Nullable(
    Type.String({
      description: "The text of a text message (or a reaction's emoji, a contact card's name).",
    }),
  ),
  caption: Nullable(Type.String({ description: 'The caption of an image, video or document.' })),
  media: Nullable(MediaInfoSchema),
  view_once: Type.Boolean({ description: 'Media that can be opened once.' }),
  location: Nullable(LocationInfoSchema),
  contacts: Nullable(
    Type.Array(ContactCardInfoSchema, { description: 'One card or several (type `contact`).' }),
  ),
  mentions: Type.Array(Type.String(), {
    description: 'Chat ids (`<number>@s.whatsapp.net` or `<lid>@lid`) of the accounts the message mentions.',
  }),
  link_preview: Nullable(LinkPreviewInfoSchema),
  group_invite: Type.Optional(Nullable(GroupInviteInfoSchema)),
  status_look: Type.Optional(
    Nullable({
      ...StatusLookSchema,
      description:
        'Only on status updates (chat `status@broadcast`): its background and font, null when plain.',
    }),
  ),
  quoted: Nullable(QuotedMessageSchema),
  timestamp: Type.String({ description: 'Unix seconds, as a string.' }),
})
export type LinkdeskMessage = Static<typeof LinkdeskMessageSchema>

/** The fields of a message that say what it holds beside its type, as its kind reads them (null when not). */
export const MESSAGE_CONTENT_FIELDS = [
  'text',
  'caption',
  'media',
  'location',
  'contacts',
  'link_preview',
  'group_invite',
] as const satisfies ReadonlyArray<keyof LinkdeskMessage>

/** A status change of a message this account sent. */
export const StatusUpdateSchema = Type.Object({
  id: Type.String(),
  chat: Type.String(),
  status: OneOf(DELIVERY_STATUSES),
  recipient: Nullable(Type.String({ description: 'In groups, the member whose receipt this is.' })),
  recipient_phone: Nullable(
    Type.String({ description: "In groups, the member's phone number (digits) when known." }),
  ),
  recipient_lid: Nullable(Type.String({ description: "In groups, the member's LID when known." })),
  error_code: Nullable(
    Type.String({
      description:
        "The network's error code when status is failed, or `unacknowledged`: the network never acknowledged the message, sent again on each new connection for 10 minutes.",
    }),
  ),
})
export type StatusUpdate = Static<typeof StatusUpdateSchema>

/** Who did something to a message, where and when: the acting message's own id and sender. */
const MessageActSchema = Type.Composite([
  Type.Pick(LinkdeskMessageSchema, [
    'id',
    'chat',
    'is_group',
    'from_me',
    'sender',
    'sender_phone',
    'sender_lid',
    'push_name',
    'timestamp',
  ]),
  Type.Object({ target_id: Type.String({ description: 'The id of the message acted on.' }) }),
])

/** A reaction put on a message, or taken back (`removed`, with an empty `emoji`). */
export const ReactionSchema = Type.Composite([
  MessageActSchema,
  Type.Object({
    emoji: Type.String({ description: 'The reaction; empty when it was taken back.' }),
    removed: Type.Boolean(),
  }),
])

/** A text its sender changed. */
export const EditSchema = Type.Composite([
  MessageActSchema,
  Type.Object({ text: Nullable(Type.String({ description: 'The new text.' })) }),
])

/** A message its sender deleted for everyone. */
export const DeletionSchema = MessageActSchema

/** What a contact shows: online or not, and in a chat whether it is typing or recording. */
export const PRESENCES = ['online', 'offline', 'typing', 'recording', 'paused'] as const
export type Presence = (typeof PRESENCES)[number]

/** A subscribed contact's presence, as presence.update carries it. */
export const PresenceUpdateSchema = Type.Object({
  chat: Type.String({ description: 'The chat it is about: the contact, or a group.' }),
  participant: Type.String({ description: 'Who: the contact, or the group member.' }),
  participant_phone: Nullable(Type.String({ description: 'Their phone number (digits) when known.' })),
  participant_lid: Nullable(Type.String({ description: 'Their LID (`…@lid`) when known.' })),
  presence: OneOf(PRESENCES),
  last_seen: Nullable(Type.Integer({ description: 'Unix seconds, when the contact shares it.' })),
})

/** An incoming call, as call.received carries it. */
export const CallOfferSchema = Type.Object({
  id: Type.String({ description: 'The call id: give it to reject_call.' }),
  from: Type.String({ description: "The caller's chat id." }),
  from_phone: Nullable(Type.String({ description: "The caller's phone number (digits) when known." })),
  from_lid: Nullable(Type.String({ description: "The caller's LID when known." })),
  video: Type.Boolean(),
  group: Type.Boolean(),
  group_id: Nullable(Type.String()),
  offline: Type.Boolean({ description: 'It rang while the instance was away.' }),
  timestamp: Type.String({ description: 'Unix seconds, as a string.' }),
})

/** A vote on a poll, with the poll's running tally (each voter's latest vote). */
export const PollVoteSchema = Type.Composite([
  MessageActSchema,
  Type.Object({
    voter: Type.String({ description: 'Who voted (their chat id).' }),
    options: Nullable(
      Type.Array(Type.String(), {
        description:
          'The option names picked; empty when a vote was taken back; null when the poll is not stored on this instance (a vote is encrypted with its poll’s secret, so it cannot be read).',
      }),
    ),
    tally: Nullable(
      Type.Array(
        Type.Object({
          option: Type.String(),
          votes: Type.Integer({ minimum: 0 }),
          voters: Type.Array(Type.String()),
        }),
        {
          description:
            'Every option of the poll, with its voters now; null when the poll is not stored on this instance.',
        },
      ),
    ),
  }),
])
