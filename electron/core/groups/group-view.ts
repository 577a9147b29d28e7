import { Type } from '@sinclair/typebox'
import { Nullable, type Static } from '../schema'
import { isOwn } from '../wa/wa-groups'
import type { WaAccount, WaGroup, WaGroupParticipant } from '../contract/network'

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
})

export const GroupSchema = Type.Composite([
  GroupSummarySchema,
  Type.Object({ participants: Type.Array(GroupMemberSchema) }),
])

export type GroupSummary = Static<typeof GroupSummarySchema>
export type GroupView = Static<typeof GroupSchema>
type GroupMember = Static<typeof GroupMemberSchema>

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
  participants: MEMBER_SAMPLE,
}

function member(participant: WaGroupParticipant): GroupMember {
  return {
    jid: participant.jid,
    phone: participant.phone,
    lid: participant.lid,
    role: participant.role ?? 'member',
  }
}

/** A group without its members, as lists show it. */
export function groupSummary(group: WaGroup, account: WaAccount): GroupSummary {
  return {
    id: group.id,
    subject: group.subject,
    description: group.description,
    owner: group.owner,
    owner_phone: group.ownerPhone,
    size: group.size,
    is_admin: group.participants.some((p) => p.role !== null && isOwn(p, account)),
    only_admins_send: group.announce,
    only_admins_edit: group.restrict,
    created_at: group.createdAt,
  }
}

/** A group with its members. */
export function groupView(group: WaGroup, account: WaAccount): GroupView {
  return { ...groupSummary(group, account), participants: group.participants.map(member) }
}
