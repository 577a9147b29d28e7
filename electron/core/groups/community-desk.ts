import { AppError } from '../errors'
import type { CommunitySummary, CommunityView } from '../contract/community'
import { isOwn } from '../contract/ids'
import type { WaAccount, WaConnection, WaGroup, WaGroups, WaLinkedGroup } from '../contract/network'
import { type GroupManagement, notAdded, type ParticipantOutcome, requireOnNetwork } from './group-desk'
import { checkDescription, checkSubject, parseGroupId, parseParticipants } from './group-input'
import { groupView } from './group-view'

export interface CommunityDeskDeps {
  connection(instanceId: string): Promise<WaConnection>
  /** Announces what the network does not tell the device that acted (the community it made). */
  groups: Pick<GroupManagement, 'changed'>
}

function parseCommunityId(input: string): string {
  try {
    return parseGroupId(input)
  } catch {
    throw new AppError(
      'invalid_parameter',
      `community_id ${JSON.stringify(input.trim())} is not a community id: it is <digits>@g.us, as communities gives it.`,
      { details: { parameter: 'community_id' } },
    )
  }
}

function isAdmin(group: WaGroup, account: WaAccount): boolean {
  return group.participants.some((p) => p.role !== null && isOwn(p, account))
}

/** The community as the network shows it to a member; a group that is not one is community_not_found. */
async function communityOf(groups: WaGroups, id: string): Promise<WaGroup> {
  const notFound = () =>
    new AppError('community_not_found', `${id} is not a community this account is in.`, {
      details: { parameter: 'community_id' },
    })
  let group: WaGroup
  try {
    group = await groups.get(id)
  } catch (error) {
    if (error instanceof AppError && error.code === 'group_not_found') throw notFound()
    throw error
  }
  if (!group.isCommunity) throw notFound()
  return group
}

function requireAdmin(group: WaGroup, account: WaAccount, what: string): void {
  if (!isAdmin(group, account))
    throw new AppError('not_group_admin', `Only the ${what}'s admins may do that; nothing changed.`, {
      details: { group_id: group.id },
    })
}

function summaryOf(
  community: WaGroup,
  linked: WaLinkedGroup[],
  mine: ReadonlySet<string>,
  account: WaAccount,
): CommunitySummary {
  const groups = [...linked]
    .sort((a, b) => Number(b.isAnnouncement) - Number(a.isAnnouncement))
    .map((group) => ({
      id: group.id,
      subject: group.subject,
      size: group.size,
      is_announcement: group.isAnnouncement,
      is_member: mine.has(group.id),
    }))
  return {
    id: community.id,
    subject: community.subject,
    description: community.description,
    owner: community.owner,
    owner_phone: community.ownerPhone,
    size: community.size,
    is_admin: isAdmin(community, account),
    created_at: community.createdAt,
    announcement_group: groups.find((group) => group.is_announcement)?.id ?? null,
    groups,
  }
}

/** The account's communities: read, made, and their groups linked and unlinked through the network. */
export class CommunityManagement {
  constructor(private readonly deps: CommunityDeskDeps) {}

  async list(instanceId: string): Promise<CommunitySummary[]> {
    const { groups, account } = await this.deps.connection(instanceId)
    const all = await groups.list()
    const mine = new Set(all.map((group) => group.id))
    const communities = all.filter((group) => group.isCommunity)
    return Promise.all(
      communities.map(async (community) =>
        summaryOf(community, await groups.linkedGroups(community.id), mine, account),
      ),
    )
  }

  async get(instanceId: string, communityId: string): Promise<CommunityView> {
    const id = parseCommunityId(communityId)
    const { groups, account } = await this.deps.connection(instanceId)
    const community = await communityOf(groups, id)
    const linked = await groups.linkedGroups(id)
    const mine = new Set((await groups.list()).map((group) => group.id))
    return {
      ...summaryOf(community, linked, mine, account),
      participants: groupView(community, account).participants,
    }
  }

  /**
   * Makes a community with its first members (checked on the network first, as for a group); the network
   * makes its announcement group with it. Both are announced as group.joined, as the network tells the
   * account's other devices.
   */
  async create(
    instanceId: string,
    subject: string,
    description: string | undefined,
    participants: readonly string[],
  ): Promise<{ community: CommunityView; not_added?: ParticipantOutcome[] }> {
    const name = checkSubject(subject)
    const about = description === undefined ? null : checkDescription(description)
    const members = participants.length === 0 ? [] : parseParticipants(participants)
    const connection = await this.deps.connection(instanceId)
    const { groups, account } = connection
    await requireOnNetwork(connection, members)
    const { community, refused } = await groups.createCommunity(name, about, members)
    const by = { author: account.lid, authorPhone: account.number }
    this.deps.groups.changed(instanceId, { kind: 'created', group: community, ...by }, account)
    const linked = await groups.linkedGroups(community.id)
    const announcement = linked.find((group) => group.isAnnouncement)
    if (announcement) {
      const group = await groups.get(announcement.id)
      this.deps.groups.changed(instanceId, { kind: 'created', group, ...by }, account)
    }
    const view = {
      ...summaryOf(community, linked, new Set(linked.map((group) => group.id)), account),
      participants: groupView(community, account).participants,
    }
    return refused.length === 0 ? { community: view } : { community: view, not_added: notAdded(refused) }
  }

  /**
   * Links a group to a community: the account must admin both, the group must be in no community and not be
   * a community itself. Everything is checked before anything is sent; the network then adds the group's
   * members to the community and tells everyone (community.linked).
   */
  async link(instanceId: string, communityId: string, groupId: string): Promise<void> {
    const id = parseCommunityId(communityId)
    const group = parseGroupId(groupId)
    const { groups, account } = await this.deps.connection(instanceId)
    requireAdmin(await communityOf(groups, id), account, 'community')
    const target = await groups.get(group)
    if (target.isCommunity || target.isAnnouncement) {
      throw new AppError(
        'invalid_parameter',
        `${group} is a community or an announcement group: only plain groups are linked.`,
        { details: { parameter: 'group_id' } },
      )
    }
    if (target.community) {
      throw new AppError(
        'group_already_linked',
        `${group} is already linked to ${target.community === id ? 'this community' : target.community}.`,
        { details: { group_id: group, community_id: target.community } },
      )
    }
    requireAdmin(target, account, 'group')
    await groups.linkGroup(id, group)
  }

  /** Unlinks one of the community's groups (admins of the community; the announcement group stays). */
  async unlink(instanceId: string, communityId: string, groupId: string): Promise<void> {
    const id = parseCommunityId(communityId)
    const group = parseGroupId(groupId)
    const { groups, account } = await this.deps.connection(instanceId)
    requireAdmin(await communityOf(groups, id), account, 'community')
    const linked = (await groups.linkedGroups(id)).find((entry) => entry.id === group)
    if (!linked) {
      throw new AppError('group_not_linked', `${group} is not linked to ${id}; nothing changed.`, {
        details: { group_id: group, community_id: id },
      })
    }
    if (linked.isAnnouncement) {
      throw new AppError('invalid_parameter', `${group} is the community's announcement group: it stays.`, {
        details: { parameter: 'group_id' },
      })
    }
    await groups.unlinkGroup(id, group)
  }
}
