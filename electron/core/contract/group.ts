import { Type } from '@sinclair/typebox'
import { Nullable, type Static } from '../schema'

/** A group as answers and events show it, and what its changes' events carry. */
export const GroupMemberSchema = Type.Object({
  jid: Type.String({ description: 'How the group addresses the member (a LID or a phone chat id).' }),
  phone: Nullable(Type.String({ description: 'Digits with country code, when known.' })),
  lid: Nullable(Type.String({ description: '`<digits>@lid`, when known.' })),
  role: Type.Union([Type.Literal('superadmin'), Type.Literal('admin'), Type.Literal('member')], {
    description: 'superadmin is the creator.',
  }),
})

export const GroupSummarySchema = Type.Object({
  id: Type.String({ description: 'The group id, `<digits>@g.us`: the `number` to send to.' }),
  subject: Type.String(),
  description: Nullable(Type.String()),
  owner: Nullable(Type.String({ description: "The creator's chat id (often a LID)." })),
  owner_phone: Nullable(Type.String()),
  size: Type.Integer({ minimum: 0 }),
  is_admin: Type.Boolean({ description: 'Whether this account is an admin of it.' }),
  only_admins_send: Type.Boolean(),
  only_admins_edit: Type.Boolean({
    description: "Only admins change the group's subject, description and picture.",
  }),
  created_at: Nullable(Type.Integer({ description: 'Unix seconds.' })),
  is_community: Type.Boolean({
    description: 'A community (the parent of linked groups): read it with community; it takes no messages.',
  }),
  community_id: Nullable(Type.String({ description: 'The community this group is linked to.' })),
  is_announcement: Type.Boolean({ description: "A community's announcement group: only admins send." }),
})

export const GroupSchema = Type.Composite([
  GroupSummarySchema,
  Type.Object({ participants: Type.Array(GroupMemberSchema) }),
])

export type GroupSummary = Static<typeof GroupSummarySchema>
export type GroupView = Static<typeof GroupSchema>
export type GroupMember = Static<typeof GroupMemberSchema>

const MEMBER_SAMPLE: GroupMember[] = [
  { jid: '123456789012345@lid', phone: '15551234567', lid: '123456789012345@lid', role: 'superadmin' },
  { jid: '987654321098765@lid', phone: '15557654321', lid: '987654321098765@lid', role: 'member' },
]

export const GROUP_SAMPLE: GroupView = {
  id: '120363041234567890@g.us',
  subject: 'Customer: Acme',
  description: 'Orders and delivery for Acme',
  owner: '123456789012345@lid',
  owner_phone: '15551234567',
  size: 2,
  is_admin: true,
  only_admins_send: false,
  only_admins_edit: true,
  created_at: 1795253914,
  is_community: false,
  community_id: null,
  is_announcement: false,
  participants: MEMBER_SAMPLE,
}

export const ByPersonSchema = Nullable(
  Type.Object(
    {
      jid: Type.String({ description: 'Their chat id as the network named them (often a LID).' }),
      phone: Nullable(Type.String({ description: 'Digits with country code, when known.' })),
      is_me: Type.Boolean({ description: 'This account did it (here or on another of its devices).' }),
    },
    { description: 'Who made the change; null when the network did not say.' },
  ),
)

const PersonSchema = Type.Object({
  phone: Nullable(Type.String({ description: 'Digits with country code, when known.' })),
  lid: Nullable(Type.String({ description: '`<digits>@lid`, when known.' })),
  is_me: Type.Boolean({ description: 'This is the account itself.' }),
})

export const GroupParticipantsEventSchema = Type.Object({
  group_id: Type.String(),
  action: Type.Union(
    ['joined', 'left', 'removed', 'promoted', 'demoted'].map((action) => Type.Literal(action)),
    {
      description:
        'joined: added by an admin or through an invite; left: went on their own; removed: by an admin; promoted and demoted: made admin, or no longer.',
    },
  ),
  participants: Type.Array(PersonSchema),
  by: ByPersonSchema,
})

export const GroupUpdatedEventSchema = Type.Object({
  group_id: Type.String(),
  changes: Type.Object(
    {
      subject: Type.Optional(Type.String()),
      description: Type.Optional(Nullable(Type.String({ description: 'null: removed.' }))),
      only_admins_send: Type.Optional(Type.Boolean()),
      only_admins_edit: Type.Optional(Type.Boolean()),
      picture: Type.Optional(Type.Literal(true, { description: 'A new picture: read it with profile.' })),
    },
    { description: 'Only what changed.' },
  ),
  by: ByPersonSchema,
})

export const GroupJoinedEventSchema = Type.Object({
  group: GroupSchema,
  by: ByPersonSchema,
})

export type Person = Static<typeof PersonSchema>
export type ByPerson = Static<typeof ByPersonSchema>

const BY_SAMPLE = { jid: '123456789012345@lid', phone: '15551234567', is_me: false }

export const GROUP_EVENT_EXAMPLES = {
  'group.participants': {
    group_id: GROUP_SAMPLE.id,
    action: 'joined',
    participants: [{ phone: '15557654321', lid: '987654321098765@lid', is_me: false }],
    by: BY_SAMPLE,
  },
  'group.updated': { group_id: GROUP_SAMPLE.id, changes: { subject: 'Customer: Acme (EU)' }, by: BY_SAMPLE },
  'group.joined': { group: { ...GROUP_SAMPLE, is_admin: false }, by: BY_SAMPLE },
} as const

/** A group event, ready for the sink. */
export type GroupEvent =
  | { event: 'group.participants'; data: Static<typeof GroupParticipantsEventSchema> }
  | { event: 'group.updated'; data: Static<typeof GroupUpdatedEventSchema> }
  | { event: 'group.joined'; data: Static<typeof GroupJoinedEventSchema> }
