import type { Account } from '../accounts/account'
import type { SandboxNetwork } from '../network'
import { type BinaryNode, node } from '../stanzas/binary-node'
import { createGroup, GroupRefusal, type ParticipantResult, requireAdmin } from './group-changes'
import { announceGroupCreated, notifyGroup, participantNode } from './group-notifications'
import type { Group } from './group-registry'

/**
 * Makes a community as WhatsApp does: a parent group (`<parent>`) with the creator and the members, and its
 * announcement group (the network's default subgroup: only admins send), linked to it, with the same members.
 * Members whose privacy refuses adds are left out of both, answered with an invitation as for a group.
 */
export function createCommunity(
  network: SandboxNetwork,
  creator: Account,
  subject: string,
  description: string | null,
  targets: Array<{ jid: string; account: Account }>,
): { community: Group; announcement: Group; refused: ParticipantResult[] } {
  const { group: community, refused } = createGroup(network, creator, subject, targets, { community: true })
  if (description) community.describe(description, creator)
  const others = community.members.flatMap(({ account }) => (account === creator ? [] : [account]))
  const announcement = network.groups.create(subject, creator, others, {
    linkedParent: community.jid,
    announcementGroup: true,
    announce: true,
  })
  return { community, announcement, refused }
}

/** A community the actor is a member of (404 as for a hidden group otherwise). */
export function communityFor(network: SandboxNetwork, jid: string | undefined, actor: Account): Group {
  const community = network.groups.get(jid)
  if (!community || !community.has(actor))
    throw new GroupRefusal(404, 'item-not-found', 'not a member of the community')
  if (!community.isCommunity) throw new GroupRefusal(400, 'bad-request', 'not a community')
  return community
}

function groupOfJid(network: SandboxNetwork, jid: string | undefined): Group | undefined {
  return network.groups.get(jid && !jid.includes('@') ? `${jid}@g.us` : jid)
}

function linkNode(tag: 'link' | 'unlink', type: string, about: Group): BinaryNode {
  const attrs: Record<string, string> =
    tag === 'link' ? { link_type: type } : { unlink_type: type, unlink_reason: 'unlink_group' }
  return node(tag, attrs, [node('group', { jid: about.jid, subject: about.subject })])
}

/** An admin of both links a group to a community; see joinCommunity for who is told what. */
export function linkGroup(network: SandboxNetwork, community: Group, jid: string, actor: Account): Group {
  requireAdmin(community, actor)
  const group = groupOfJid(network, jid)
  if (!group) throw new GroupRefusal(404, 'item-not-found', 'no such group')
  requireAdmin(group, actor)
  if (group.isCommunity || group.isAnnouncementGroup)
    throw new GroupRefusal(406, 'not-acceptable', 'a community or its announcement group cannot be linked')
  if (group.linkedParent) throw new GroupRefusal(409, 'conflict', 'the group is already linked')
  group.linkTo(community.jid)
  joinCommunity(network, community, group, actor)
  return group
}

/** A group made inside a community (`<linked_parent>`): only the community's admins may. */
export function requireCommunityAdmin(community: Group, actor: Account): void {
  requireAdmin(community, actor)
}

/**
 * A group now linked to the community: its members who are not yet in the community join it and its
 * announcement group (each told by an `add`); then the community's members hear of the new subgroup
 * (`link_type="sub_group"`, from the community) and the group's of its parent (`parent_group`).
 */
export function joinCommunity(network: SandboxNetwork, community: Group, group: Group, actor: Account): void {
  const newcomers = group.members.flatMap(({ account }) => (community.has(account) ? [] : [account]))
  const announcement = network.groups.linkedTo(community).find((linked) => linked.isAnnouncementGroup)
  for (const joined of [community, ...(announcement ? [announcement] : [])]) {
    const fresh = newcomers.filter((account) => !joined.has(account))
    if (fresh.length === 0) continue
    for (const account of fresh) joined.add(account)
    notifyGroup(joined, actor, node('add', { reason: 'linked_group_join' }, fresh.map(participantNode)))
  }
  notifyGroup(community, actor, linkNode('link', 'sub_group', group))
  notifyGroup(group, actor, linkNode('link', 'parent_group', community))
}

/**
 * An admin of the community unlinks one of its groups (not the announcement group). The group's members
 * stay in the community; both sides are told, as for a link.
 */
export function unlinkGroup(network: SandboxNetwork, community: Group, jid: string, actor: Account): Group {
  requireAdmin(community, actor)
  const group = groupOfJid(network, jid)
  if (!group || group.linkedParent !== community.jid)
    throw new GroupRefusal(404, 'item-not-found', 'the group is not linked to this community')
  if (group.isAnnouncementGroup)
    throw new GroupRefusal(406, 'not-acceptable', 'the announcement group stays with its community')
  group.linkTo(null)
  notifyGroup(community, actor, linkNode('unlink', 'sub_group', group))
  notifyGroup(group, actor, linkNode('unlink', 'parent_group', community))
  return group
}

/** The community's groups as `sub_groups` answers them: each linked group, the announcement group marked. */
export function subGroupsNode(network: SandboxNetwork, community: Group): BinaryNode {
  return node(
    'sub_groups',
    {},
    network.groups.linkedTo(community).map((group) =>
      node(
        'group',
        {
          id: group.id,
          subject: group.subject,
          s_t: String(group.subjectSet.at),
          creation: String(group.createdAt),
          creator: group.creator.lidJid,
          size: String(group.members.length),
        },
        group.isAnnouncementGroup ? [node('default_sub_group')] : undefined,
      ),
    ),
  )
}

/** Tells every member of the community and of its announcement group that both exist. */
export function announceCommunityCreated(
  community: Group,
  announcement: Group,
  except?: Parameters<typeof announceGroupCreated>[1],
): void {
  announceGroupCreated(community, except)
  announceGroupCreated(announcement, except)
}
