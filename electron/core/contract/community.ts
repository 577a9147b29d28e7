import { Type } from '@sinclair/typebox'
import { Nullable, type Static } from '../schema'
import { ByPersonSchema, GROUP_SAMPLE, GroupMemberSchema } from './group'

/** A community as answers and events show it: its linked groups, its announcement group, its members. */
export const LinkedGroupSchema = Type.Object({
  id: Type.String({ description: 'The group id, `<digits>@g.us`.' }),
  subject: Type.String(),
  size: Nullable(Type.Integer({ minimum: 0 })),
  is_announcement: Type.Boolean({
    description: "The community's announcement group: every member is in it, only admins send.",
  }),
  is_member: Type.Boolean({
    description: 'This account is in the group (a member may not be in every one).',
  }),
})

export const CommunitySummarySchema = Type.Object({
  id: Type.String({
    description: 'The community id, `<digits>@g.us`: a parent group, which takes no messages itself.',
  }),
  subject: Type.String(),
  description: Nullable(Type.String()),
  owner: Nullable(Type.String({ description: "The creator's chat id (often a LID)." })),
  owner_phone: Nullable(Type.String()),
  size: Type.Integer({ minimum: 0 }),
  is_admin: Type.Boolean({ description: 'Whether this account is an admin of it.' }),
  created_at: Nullable(Type.Integer({ description: 'Unix seconds.' })),
  announcement_group: Nullable(
    Type.String({ description: 'The id of its announcement group: send announcements there.' }),
  ),
  groups: Type.Array(LinkedGroupSchema, { description: 'Its groups, the announcement group first.' }),
})

export const CommunitySchema = Type.Composite([
  CommunitySummarySchema,
  Type.Object({ participants: Type.Array(GroupMemberSchema) }),
])

export type CommunitySummary = Static<typeof CommunitySummarySchema>
export type CommunityView = Static<typeof CommunitySchema>

const ANNOUNCEMENT_ID = '120363049876543210@g.us'

export const COMMUNITY_SAMPLE: CommunityView = {
  id: '120363040000000001@g.us',
  subject: 'Acme customers',
  description: 'Everything Acme',
  owner: GROUP_SAMPLE.owner,
  owner_phone: GROUP_SAMPLE.owner_phone,
  size: 2,
  is_admin: true,
  created_at: 1795253914,
  announcement_group: ANNOUNCEMENT_ID,
  groups: [
    { id: ANNOUNCEMENT_ID, subject: 'Acme customers', size: 2, is_announcement: true, is_member: true },
    { id: GROUP_SAMPLE.id, subject: GROUP_SAMPLE.subject, size: 2, is_announcement: false, is_member: true },
  ],
  participants: GROUP_SAMPLE.participants,
}

export const CommunityLinkEventSchema = Type.Object({
  community_id: Type.String(),
  group_id: Type.String(),
  group_subject: Nullable(Type.String()),
  by: ByPersonSchema,
})

const LINK_SAMPLE = {
  community_id: COMMUNITY_SAMPLE.id,
  group_id: GROUP_SAMPLE.id,
  group_subject: GROUP_SAMPLE.subject,
  by: { jid: '123456789012345@lid', phone: '15551234567', is_me: false },
}

export const COMMUNITY_EVENT_EXAMPLES = {
  'community.linked': LINK_SAMPLE,
  'community.unlinked': LINK_SAMPLE,
} as const

/** A community event, ready for the sink. */
export type CommunityEvent = {
  event: 'community.linked' | 'community.unlinked'
  data: Static<typeof CommunityLinkEventSchema>
}
