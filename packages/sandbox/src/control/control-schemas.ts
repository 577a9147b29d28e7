import {
  type TLiteral,
  type TObject,
  type TProperties,
  type TSchema,
  type TUnion,
  Type,
} from '@sinclair/typebox'
import { MEDIA_PRESENTATIONS } from '../messages/outgoing-content'
import { SANDBOX_PRESENCE_STATES } from './control-types'

/**
 * The control API's bodies and answers as JSON schemas (TypeBox). Each route checks its body against its own
 * schema (`checkedBody`) and declares both in its `config.control`, which an app that mounts the routes reads
 * for its API document: what is validated and what is documented are one value.
 */

/** A control route as an API document shows it. */
export interface ControlRouteDoc {
  summary: string
  /** Its path parameters (`:name` in its URL), with what each is and a value to call it with. */
  params?: Record<string, { description: string; example: string }>
  /** Its JSON (or form) body. */
  body?: TObject
  /** Its success answer, `status` included. */
  answer: TObject
}

declare module 'fastify' {
  interface FastifyContextConfig {
    /** A sandbox control route's declaration. */
    control?: ControlRouteDoc
  }
}

const { Optional } = Type

/** One of a list of strings. */
function literals<const T extends readonly string[]>(
  values: T,
  description?: string,
): TUnion<Array<TLiteral<T[number]>>> {
  return Type.Union(
    values.map((value) => Type.Literal(value)),
    description === undefined ? {} : { description },
  ) as TUnion<Array<TLiteral<T[number]>>>
}

function nullable<T extends TSchema>(schema: T) {
  return Type.Union([schema, Type.Null()])
}

/** An answer: `status: "success"` and its fields. */
function success(fields: TProperties = {}): TObject {
  return Type.Object({ status: Type.Literal('success'), ...fields })
}

const phone = (description: string) => Type.String({ description, examples: ['15550002222'] })
const phoneList = (description: string) =>
  Type.Union([Type.Array(Type.String()), Type.String()], {
    description: `${description}: a list, or one comma-separated string.`,
  })
const base64 = (description: string) => Type.String({ format: 'byte', description })

export const PHONE_PARAM = {
  phone: {
    description: 'A simulated account’s phone number (digits with country code).',
    example: '15550002222',
  },
}
export const GROUP_PARAM = {
  group: { description: 'A group id (`<id>@g.us`).', example: '120363000000000001@g.us' },
}
export const CHANNEL_PARAM = {
  channel: {
    description: 'A channel id (`<digits>@newsletter`) or its invite code.',
    example: '120363000000000002@newsletter',
  },
}

const Linked = success({ jid: Type.String(), lid: Type.String() })

export const LinkBody = Type.Object({
  qr: Type.String({ description: 'The QR code’s text (`qr_text` in `qr.update`).' }),
  phone: phone('The phone that scans it (added when new).'),
  name: Optional(Type.String({ description: 'The linked device’s name.' })),
})
export const LinkAnswer = Linked

export const PairingCodeBody = Type.Object({
  code: Type.String({ description: 'The pairing code the device shows.' }),
  name: Optional(Type.String()),
})
export const PairingCodeAnswer = Linked

const Behaviour = Type.Object({
  reads: literals(['instantly', 'after', 'never']),
  read_after_ms: Type.Number(),
  types_before_reply: Type.Boolean(),
  online: literals(['always', 'never', 'while_active']),
})

const Account = Type.Object({
  phone: Type.String(),
  jid: Type.String(),
  lid: Type.String(),
  name: Type.String(),
  autoReply: nullable(Type.Literal('echo')),
  linkedDevices: Type.Array(Type.Integer()),
  behaviour: Type.Object({
    reads: literals(['instantly', 'after', 'never']),
    readAfterMs: Type.Number(),
    typesBeforeReply: Type.Boolean(),
    online: literals(['always', 'never', 'while_active']),
  }),
  business: Type.Boolean(),
})
export const AccountsAnswer = success({ accounts: Type.Array(Account) })

export const AddAccountBody = Type.Object({
  phone: phone('The account’s number.'),
  name: Optional(Type.String()),
  auto_reply: Optional(Type.Literal('echo', { description: 'Answer every text with `echo: <text>`.' })),
  about: Optional(Type.String()),
  groups_add: Optional(literals(['all', 'contacts'], 'Who may add the account to groups.')),
  business: Optional(Type.Boolean({ description: 'A WhatsApp Business account.' })),
})
export const AddAccountAnswer = success({ phone: Type.String(), jid: Type.String(), lid: Type.String() })

const InboxEntry = Type.Object({
  id: Type.String(),
  from: Type.String(),
  chat: Type.String(),
  type: Type.String(),
  text: nullable(Type.String()),
  caption: nullable(Type.String()),
  filename: nullable(Type.String()),
  mimetype: nullable(Type.String()),
  size: nullable(Type.Number()),
  sha256: nullable(Type.String()),
  ptt: Type.Boolean(),
  videoNote: Type.Boolean(),
  viewOnce: Type.Boolean(),
  seconds: nullable(Type.Number()),
  waveform: nullable(Type.Array(Type.Number())),
  location: nullable(Type.Object({})),
  contacts: nullable(Type.Array(Type.Object({}))),
  quotedId: nullable(Type.String()),
  targetId: nullable(Type.String()),
  poll: nullable(Type.Object({})),
  mentions: Type.Array(Type.String()),
  linkPreview: nullable(Type.Object({})),
  groupInvite: nullable(Type.Object({})),
  expiration: nullable(Type.Number()),
  timestamp: Type.Number(),
})
export const InboxAnswer = success({ messages: Type.Array(InboxEntry) })

export const SendBody = Type.Object({
  to: Type.String({ description: 'A phone number, a user JID or a group JID.' }),
  text: Optional(Type.String()),
  media_base64: Optional(base64('A file to send, base64.')),
  mimetype: Optional(Type.String()),
  filename: Optional(Type.String()),
  caption: Optional(Type.String()),
  media_as: Optional(literals(MEDIA_PRESENTATIONS, 'How the file is presented.')),
  seconds: Optional(Type.Number({ description: 'Playing time of audio or video.' })),
  view_once: Optional(Type.Boolean()),
  location: Optional(
    Type.Object({
      latitude: Type.Number(),
      longitude: Type.Number(),
      name: Optional(Type.String()),
      address: Optional(Type.String()),
    }),
  ),
  contacts: Optional(Type.Array(Type.Object({ name: Type.String(), phone: Type.String() }))),
  link_preview: Optional(
    Type.Object({ url: Type.String(), title: Type.String(), description: Optional(Type.String()) }),
  ),
  reply_to: Optional(Type.String({ description: 'The id of an earlier message, to quote.' })),
  reaction: Optional(Type.Object({ id: Type.String(), emoji: Optional(Type.String()) })),
  edit: Optional(Type.Object({ id: Type.String(), text: Type.String() })),
  revoke: Optional(Type.Object({ id: Type.String() })),
  vote: Optional(
    Type.Object({
      id: Type.String(),
      options: Optional(Type.Array(Type.String())),
      unknown_poll: Optional(Type.Boolean()),
    }),
  ),
  mentions: Optional(phoneList('Phone numbers to mention')),
  addressing: Optional(literals(['pn', 'lid'])),
})
export const SendAnswer = success({ id: Type.String() })

export const CallBody = Type.Object({
  to: phone('The account called.'),
  video: Optional(Type.Boolean()),
})
export const CallAnswer = success({ id: Type.String() })

const Call = Type.Object({
  id: Type.String(),
  from: Type.String(),
  to: Type.String(),
  video: Type.Boolean(),
  status: literals(['ringing', 'rejected']),
  at: Type.Number(),
})
export const CallsAnswer = success({ calls: Type.Array(Call) })

export const BehaviourBody = Type.Object({
  reads: Optional(literals(['instantly', 'after', 'never'])),
  read_after_ms: Optional(Type.Number()),
  types_before_reply: Optional(Type.Boolean()),
  online: Optional(literals(['always', 'never', 'while_active'])),
})
export const BehaviourAnswer = success({ behaviour: Behaviour })

export const NumberBody = Type.Object({
  with: phone('The other account.'),
  shared: Type.Boolean({ description: 'Whether this account shares its number with it.' }),
})
export const NumberAnswer = success({ hidden_from: Type.Array(Type.String()) })

export const ReadsAnswer = success({ ids: Type.Array(Type.String()) })

export const ReadBody = Type.Object({
  ids: Type.Array(Type.String(), { description: 'Ids of messages the account received.' }),
})
export const ReadAnswer = success({ read: Type.Integer() })

export const ReceiptsAnswer = success({
  receipts: Type.Array(
    Type.Object({
      device: Type.Integer(),
      logged_in_at: Type.Number(),
      at: Type.Number(),
      type: Type.String(),
      ids: Type.Array(Type.String()),
    }),
  ),
})

export const PresenceAnswer = success({
  online: nullable(Type.Boolean()),
  chat_states: Type.Array(Type.Object({ from: Type.String(), state: Type.String(), at: Type.Number() })),
})

export const PresenceBody = Type.Object({
  state: literals(SANDBOX_PRESENCE_STATES),
  to: Optional(phone('The chat the state is shown in.')),
})
export const Done = success()

export const AppStateAnswer = success({
  versions: Type.Record(Type.String(), Type.Number()),
  chats: Type.Record(Type.String(), Type.Object({})),
  contacts: Type.Record(Type.String(), Type.String()),
  starred: Type.Record(Type.String(), Type.Array(Type.String())),
  labels: Type.Record(Type.String(), Type.Object({})),
  labeledChats: Type.Record(Type.String(), Type.Array(Type.String())),
  labeledMessages: Type.Record(Type.String(), Type.Array(Type.String())),
  requests: Type.Array(Type.Object({ collection: Type.String(), version: Type.Number() })),
})

export const LabelBody = Type.Object({
  label: Type.String({ description: 'The label id.' }),
  name: Optional(Type.String({ description: 'Edits (or creates) the label.' })),
  color: Optional(Type.Number()),
  deleted: Optional(Type.Boolean()),
  chat: Optional(Type.String({ description: 'Without `name`: the chat the label goes on or off.' })),
  labeled: Optional(Type.Boolean()),
  message: Optional(Type.String({ description: 'A message of the chat, to label it instead.' })),
})

export const AppStateBody = Type.Object({
  chat: Type.String({ description: 'A chat id or a phone number.' }),
  archived: Optional(Type.Boolean()),
  pinned: Optional(Type.Boolean()),
  muted_until: Optional(nullable(Type.Number({ description: 'Unix ms the mute ends (-1: always).' }))),
  unread: Optional(Type.Boolean()),
  saved_name: Optional(Type.String()),
  clear: Optional(Type.Boolean()),
  delete: Optional(Type.Boolean()),
})

export const GroupBody = Type.Object({
  subject: Type.String(),
  participants: Optional(phoneList('Members; the first is its creator')),
})
export const GroupCreatedAnswer = success({ group_id: Type.String() })

export const GroupAnswer = success({
  group: Type.Object({
    id: Type.String(),
    subject: Type.String(),
    description: nullable(Type.String()),
    announce: Type.Boolean(),
    restrict: Type.Boolean(),
    ephemeral: Type.Number(),
    pictureId: nullable(Type.String()),
    members: Type.Array(
      Type.Object({
        phone: Type.String(),
        lid: Type.String(),
        role: nullable(literals(['superadmin', 'admin'])),
      }),
    ),
    community: Type.Boolean(),
    linkedParent: nullable(Type.String()),
    announcementGroup: Type.Boolean(),
    linkedGroups: Type.Array(Type.String()),
  }),
})

export const GROUP_ACTIONS = [
  'add',
  'remove',
  'promote',
  'demote',
  'subject',
  'description',
  'announce',
  'restrict',
  'ephemeral',
  'leave',
] as const

export const GroupChangeBody = Type.Object({
  action: literals(GROUP_ACTIONS),
  participants: Optional(phoneList('add, remove, promote, demote: the members')),
  subject: Optional(Type.String({ description: 'subject: the new subject.' })),
  description: Optional(nullable(Type.String({ description: 'description: the new one (null clears it).' }))),
  on: Optional(Type.Boolean({ description: 'announce, restrict: on or off.' })),
  seconds: Optional(Type.Integer({ minimum: 0, description: 'ephemeral: the timer, 0 turns it off.' })),
})
export const GroupChangeAnswer = success({
  results: Type.Array(Type.Object({ phone: Type.String(), error: nullable(Type.String()) })),
})

export const JoinBody = Type.Object({ code: Type.String({ description: 'An invite code.' }) })
export const JoinAnswer = success({ group_id: Type.String() })

export const ClientVersionBody = Type.Object({
  current: Optional(Type.String({ description: 'The version announced, "2.3000.N".' })),
  minimum: Optional(nullable(Type.String({ description: 'Clients below it are refused (null: none).' }))),
})
export const ClientVersionAnswer = success({ current: Type.String(), minimum: nullable(Type.String()) })

export const MediaLifetimeBody = Type.Object({
  lifetime_ms: Type.Number({ description: 'How long the media host keeps a file uploaded from now on.' }),
})
export const MediaLifetimeAnswer = success({ lifetime_ms: Type.Number() })

export const ForgetMediaAnswer = success({ files: Type.Integer() })

export const PictureBody = Type.Object({ media_base64: base64('The picture, base64.') })
export const PictureAnswer = success({ url: Type.String() })

export const DropBody = Type.Object({
  mode: literals(['close', 'silent']),
  down_for_ms: Optional(Type.Number({ description: 'Logins are cut too for this long.' })),
})

export const DropAllBody = Type.Object({ mode: literals(['close', 'silent']) })

export const DropAllAnswer = success({
  devices: Type.Integer({ description: 'How many connected linked devices were cut.' }),
})

export const FailLoginBody = Type.Object({
  code: Type.Number({ description: 'The `<failure reason>` of the next login.' }),
})

export const ReplaceAnswer = success({ devices: Type.Integer() })

export const EndpointAnswer = success({
  websocket: Type.String(),
  root_key: Type.String(),
  media_ca: Type.String(),
  version_url: Type.String(),
})

const ChannelPost = Type.Object({
  server_id: Type.Integer(),
  id: Type.String(),
  type: Type.String(),
  t: Type.Number(),
  text: nullable(Type.String()),
  media: nullable(Type.String()),
  reactions: Type.Record(Type.String(), Type.String()),
})
const Channel = Type.Object({
  id: Type.String(),
  name: Type.String(),
  description: Type.String(),
  invite: Type.String(),
  owner: Type.String(),
  followers: Type.Array(Type.String()),
  posts: Type.Array(ChannelPost),
})
export const ChannelsAnswer = success({ channels: Type.Array(Channel) })
export const ChannelAnswer = success({ channel: Channel })
export const ChannelBody = Type.Object({ name: Type.String(), description: Optional(Type.String()) })
export const FollowBody = Type.Object({
  follow: Optional(
    Type.Union([Type.Boolean(), literals(['true', 'false'])], {
      description: 'false unfollows; true (the default) follows.',
    }),
  ),
})
export const PostBody = Type.Object({ text: Type.String() })
export const PostAnswer = success({ post: ChannelPost })
