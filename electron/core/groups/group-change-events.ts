import { Type } from '@sinclair/typebox'
import { Nullable, type Static } from '../schema'
import { isOwn } from '../wa/wa-groups'
import type { WaAccount, WaGroupChange } from '../contract/network'
import { GROUP_SAMPLE, GroupSchema, groupView } from './group-view'

const ByPersonSchema = Nullable(
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

type Person = Static<typeof PersonSchema>
type ByPerson = Static<typeof ByPersonSchema>

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

function byOf(change: { author: string | null; authorPhone: string | null }, account: WaAccount): ByPerson {
  if (!change.author) return null
  const lid = change.author.endsWith('@lid') ? change.author : null
  return {
    jid: change.author,
    phone: change.authorPhone,
    is_me: isOwn({ phone: change.authorPhone, lid }, account),
  }
}

const PARTICIPANT_ACTIONS = {
  add: 'joined',
  remove: 'removed',
  promote: 'promoted',
  demote: 'demoted',
} as const

/**
 * The events a network group change makes: group.participants or group.updated, and group.joined when the
 * account itself became a member (the group was made with it, or it was added).
 */
export function groupEvents(change: WaGroupChange, account: WaAccount): GroupEvent[] {
  const by = byOf(change, account)
  switch (change.kind) {
    case 'created':
      return [{ event: 'group.joined', data: { group: groupView(change.group, account), by } }]
    case 'updated': {
      const { subject, description, announce, restrict, picture } = change.changes
      const changes: Static<typeof GroupUpdatedEventSchema>['changes'] = {}
      if (subject !== undefined) changes.subject = subject
      if (description !== undefined) changes.description = description
      if (announce !== undefined) changes.only_admins_send = announce
      if (restrict !== undefined) changes.only_admins_edit = restrict
      if (picture) changes.picture = true
      return [{ event: 'group.updated', data: { group_id: change.group, changes, by } }]
    }
    case 'participants': {
      const participants: Person[] = change.participants.map((p) => ({ ...p, is_me: isOwn(p, account) }))
      const self =
        change.action === 'remove' &&
        participants.length === 1 &&
        (by?.jid === participants[0]?.lid || (by?.phone !== null && by?.phone === participants[0]?.phone))
      const action = self ? 'left' : PARTICIPANT_ACTIONS[change.action]
      return [{ event: 'group.participants', data: { group_id: change.group, action, participants, by } }]
    }
  }
}
