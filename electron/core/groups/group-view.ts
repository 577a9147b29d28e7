import type { WaAccount, WaGroup, WaGroupParticipant } from '../contract/network'
import { type GroupMember, type GroupSummary, type GroupView } from '../contract/group'
import { isOwn } from '../contract/ids'

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
    is_community: group.isCommunity,
    community_id: group.community,
    is_announcement: group.isAnnouncement,
  }
}

/** A group with its members. */
export function groupView(group: WaGroup, account: WaAccount): GroupView {
  return { ...groupSummary(group, account), participants: group.participants.map(member) }
}
