import {
  type BinaryNode,
  generateMessageIDV2,
  generateProfilePicture,
  getBinaryNodeChild,
  getBinaryNodeChildren,
  type GroupMetadata,
  jidNormalizedUser,
  type WASocket,
} from '@whiskeysockets/baileys'
import { userOf } from '../contract/ids'
import { AppError } from '../errors'
import type {
  WaGroup,
  WaGroupParticipant,
  WaGroups,
  WaLinkedGroup,
  WaParticipantResult,
} from '../contract/network'

function phoneOf(jid: string | undefined): string | null {
  return jid?.endsWith('@s.whatsapp.net') ? userOf(jid) : null
}

function participantOf(participant: GroupMetadata['participants'][number]): WaGroupParticipant {
  const lid = participant.id.endsWith('@lid') ? participant.id : (participant.lid ?? null)
  const phone = phoneOf(participant.phoneNumber) ?? phoneOf(participant.id)
  const role = participant.admin === 'superadmin' || participant.admin === 'admin' ? participant.admin : null
  return { jid: participant.id, phone, lid: lid ? jidNormalizedUser(lid) : null, role }
}

/** A group's metadata in Linkdesk's words. */
export function mapGroup(metadata: GroupMetadata): WaGroup {
  return {
    id: metadata.id,
    subject: metadata.subject,
    description: metadata.desc ?? null,
    owner: metadata.owner ?? null,
    ownerPhone: phoneOf(metadata.ownerPn ?? metadata.owner),
    size: metadata.size ?? metadata.participants.length,
    createdAt: metadata.creation ?? null,
    announce: Boolean(metadata.announce),
    restrict: Boolean(metadata.restrict),
    participants: metadata.participants.map(participantOf),
    isCommunity: Boolean(metadata.isCommunity),
    community: metadata.linkedParent ? groupJid(metadata.linkedParent) : null,
    isAnnouncement: Boolean(metadata.isCommunityAnnounce),
  }
}

function groupJid(id: string): string {
  return id.includes('@') ? id : `${id}@g.us`
}

/**
 * Reads a refused group query: 404 is a group that is not there for this account (WhatsApp hides groups
 * from non-members), 403 and 401 an action only admins may take, 406 a value the network does not accept.
 */
export function groupError(error: unknown, what: string, group?: string): AppError {
  const code = (error as { data?: unknown })?.data
  if (code === 404 && group) {
    return new AppError('group_not_found', `${group} is not a group this account is in.`, {
      cause: error,
      details: { parameter: 'group_id' },
    })
  }
  if (code === 404) return new AppError('not_found', `The network knows no such ${what}.`, { cause: error })
  if (code === 403 || code === 401) {
    return new AppError('not_group_admin', `Only the group's admins may change its ${what}.`, {
      cause: error,
    })
  }
  if (code === 406 || code === 400) {
    return new AppError('invalid_parameter', `The network did not accept the ${what}.`, { cause: error })
  }
  const status = (error as { output?: { statusCode?: number } })?.output?.statusCode
  if (status === 428)
    return new AppError('not_connected', `The connection closed during the ${what}.`, { cause: error })
  if (status === 408)
    return new AppError('upstream_timeout', `The network did not answer the ${what} in time.`, {
      cause: error,
    })
  return new AppError('upstream_failed', `The network refused the ${what}.`, { cause: error })
}

/** One participant of a change's answer: its status (the node's error, 200 without one) and any invitation. */
function participantResult(jid: string | undefined, status: string, participant: BinaryNode | undefined) {
  const request = Array.isArray(participant?.content)
    ? participant.content.find((child) => child.tag === 'add_request')
    : undefined
  const code = request?.attrs.code
  return {
    jid: jid ?? '',
    status,
    addRequest: code ? { code, expiration: Number(request.attrs.expiration ?? 0) } : null,
  } satisfies WaParticipantResult
}

/**
 * Makes a group, or with `<parent>` a community, with the network's own query, since Baileys' groupCreate reads
 * every participant of the answer as a member (the ones the network left out carry an error: 403 with an
 * invitation for privacy) and its communityCreate takes no members.
 */
async function createGroup(
  socket: WASocket,
  subject: string,
  participants: readonly string[],
  community?: { description: string | null },
) {
  const extra: BinaryNode[] = community
    ? [
        ...(community.description
          ? [
              {
                tag: 'description',
                attrs: { id: generateMessageIDV2().slice(0, 12) },
                content: [{ tag: 'body', attrs: {}, content: Buffer.from(community.description, 'utf8') }],
              },
            ]
          : []),
        { tag: 'parent', attrs: { default_membership_approval_mode: 'request_required' } },
        { tag: 'allow_non_admin_sub_group_creation', attrs: {} },
        { tag: 'create_general_chat', attrs: {} },
      ]
    : []
  const answer = await socket.query({
    tag: 'iq',
    attrs: { type: 'set', xmlns: 'w:g2', to: '@g.us' },
    content: [
      {
        tag: 'create',
        attrs: { subject, key: generateMessageIDV2() },
        content: [...participants.map((jid) => ({ tag: 'participant', attrs: { jid } })), ...extra],
      },
    ],
  })
  const made = getBinaryNodeChild(answer, 'group')
  const id = made?.attrs.id
  if (!id) throw new AppError('upstream_failed', 'The network did not answer the new group’s id.')
  const refused = getBinaryNodeChildren(made, 'participant')
    .filter((participant) => participant.attrs.error)
    .map((participant) =>
      participantResult(participant.attrs.jid, participant.attrs.error ?? '', participant),
    )
  const jid = groupJid(id)
  try {
    return { group: mapGroup(await socket.groupMetadata(jid)), refused }
  } catch (error) {
    throw new AppError(
      groupError(error, 'new group').code,
      `The group ${jid} was made, but reading it back failed: read it with the group operation.`,
      { cause: error, details: { group_id: jid } },
    )
  }
}

/** The community's `sub_groups`: each linked group, the announcement group marked `default_sub_group`. */
async function linkedGroups(socket: WASocket, community: string): Promise<WaLinkedGroup[]> {
  const answer = await socket.query({
    tag: 'iq',
    attrs: { type: 'get', xmlns: 'w:g2', to: community },
    content: [{ tag: 'sub_groups', attrs: {} }],
  })
  return getBinaryNodeChildren(getBinaryNodeChild(answer, 'sub_groups'), 'group').map((group) => ({
    id: groupJid(group.attrs.id ?? ''),
    subject: group.attrs.subject ?? '',
    size: group.attrs.size ? Number(group.attrs.size) : null,
    isAnnouncement: Boolean(getBinaryNodeChild(group, 'default_sub_group')),
  }))
}

async function ask<T>(work: () => Promise<T>, what: string, group?: string): Promise<T> {
  try {
    return await work()
  } catch (error) {
    throw error instanceof AppError ? error : groupError(error, what, group)
  }
}

/** The group operations over one open socket. */
export function createWaGroups(socket: WASocket): WaGroups {
  return {
    list: () =>
      ask(async () => Object.values(await socket.groupFetchAllParticipating()).map(mapGroup), 'group list'),
    get: (group) => ask(async () => mapGroup(await socket.groupMetadata(group)), 'group', group),
    create: (subject, participants) => ask(() => createGroup(socket, subject, participants), 'new group'),
    changeParticipants: (group, action, participants) =>
      ask(
        async () =>
          (await socket.groupParticipantsUpdate(group, [...participants], action)).map(
            ({ jid, status, content }) => participantResult(jid, status, content),
          ),
        'members',
        group,
      ),
    setSubject: (group, subject) => ask(() => socket.groupUpdateSubject(group, subject), 'subject', group),
    setDescription: (group, text) =>
      ask(() => socket.groupUpdateDescription(group, text ?? undefined), 'description', group),
    setSetting: (group, setting) => ask(() => socket.groupSettingUpdate(group, setting), 'settings', group),
    setPicture: (group, image) => ask(() => socket.updateProfilePicture(group, image), 'picture', group),
    async checkPicture(image) {
      try {
        await generateProfilePicture(image)
      } catch (error) {
        throw new AppError('media_unavailable', 'The picture cannot be read as an image.', {
          cause: error,
          details: { parameter: 'media_url' },
        })
      }
    },
    inviteCode: (group, revoke) =>
      ask(
        async () => (await (revoke ? socket.groupRevokeInvite(group) : socket.groupInviteCode(group))) ?? '',
        'invite code',
        group,
      ),
    inviteInfo: (code) => ask(async () => mapGroup(await socket.groupGetInviteInfo(code)), 'invite code'),
    join: (code) => ask(async () => (await socket.groupAcceptInvite(code)) ?? '', 'invite code'),
    leave: (group) => ask(() => socket.groupLeave(group), 'membership', group),
    createCommunity: async (subject, description, participants) => {
      const { group, refused } = await ask(
        () => createGroup(socket, subject, participants, { description }),
        'new community',
      )
      return { community: group, refused }
    },
    linkedGroups: (community) => ask(() => linkedGroups(socket, community), 'community', community),
    linkGroup: (community, group) =>
      ask(() => socket.communityLinkGroup(group, community), 'community links', community),
    unlinkGroup: (community, group) =>
      ask(() => socket.communityUnlinkGroup(group, community), 'community links', community),
  }
}
