import type { Account } from '../accounts/account'
import type { ClientConnection } from '../transport/client-connection'
import { type BinaryNode, child, children, iqError, iqResult, node } from '../stanzas/binary-node'
import type { StanzaContext, StanzaRouter } from '../stanzas/stanza-router'
import {
  changeParticipants,
  changeSetting,
  createGroup,
  GroupRefusal,
  type GroupSetting,
  inviteCode,
  inviteInfo,
  joinByInvite,
  leaveGroup,
  type ParticipantAction,
  participantResultNode,
  participantResults,
  setDescription,
  setGroupEphemeral,
  setSubject,
} from './group-changes'
import { announceGroupCreated } from './group-notifications'
import {
  announceCommunityCreated,
  communityFor,
  createCommunity,
  joinCommunity,
  linkGroup,
  requireCommunityAdmin,
  subGroupsNode,
  unlinkGroup,
} from './community-changes'
import type { Group } from './group-registry'
import { groupNode } from './group-node'

/** Runs a group change for a linked device, answering its result or the network's refusal. */
export function answerGroupChange(
  connection: ClientConnection,
  iq: BinaryNode,
  change: () => BinaryNode[] | void,
): void {
  try {
    connection.send(iqResult(iq, change() ?? undefined))
  } catch (error) {
    if (!(error instanceof GroupRefusal)) throw error
    connection.send(iqError(iq, error.code, error.text))
  }
}

/** A query about one group, by a member: the group, or 404 as WhatsApp answers for groups it hides. */
function memberQuery(
  handle: (
    group: Group,
    account: Account,
    ctx: StanzaContext,
    first: BinaryNode | undefined,
  ) => BinaryNode[] | void,
) {
  return (ctx: StanzaContext, iq: BinaryNode, first: BinaryNode | undefined): void => {
    const { network, connection, session } = ctx
    const group = network.groups.get(iq.attrs.to)
    // Like WhatsApp, a group is invisible to non-members.
    if (!group || !session || !group.has(session.account))
      return connection.send(iqError(iq, 404, 'item-not-found'))
    answerGroupChange(connection, iq, () => {
      const answer = handle(group, session.account, ctx, first)
      if (iq.attrs.type === 'set') {
        network.events.emit('group', {
          group: group.jid,
          phone: session.account.phone,
          change: first?.tag ?? '',
        })
      }
      return answer
    })
  }
}

/** A query not about one group (`to="@g.us"`), by a logged-in device. */
function accountQuery(
  handle: (account: Account, ctx: StanzaContext, first: BinaryNode | undefined) => BinaryNode[] | void,
) {
  return (ctx: StanzaContext, iq: BinaryNode, first: BinaryNode | undefined): void => {
    const { connection, session } = ctx
    if (!session) return connection.send(iqError(iq, 401, 'not-authorized'))
    answerGroupChange(connection, iq, () => handle(session.account, ctx, first))
  }
}

function textOf(n: BinaryNode | undefined): string | undefined {
  const content = n?.content
  return typeof content === 'string' || content instanceof Uint8Array
    ? Buffer.from(content).toString('utf8')
    : undefined
}

function participantChange(action: ParticipantAction) {
  return memberQuery((group, account, { network }, first) => {
    const targets = children(first, 'participant').map(({ attrs }) => ({
      jid: attrs.jid ?? '',
      account: network.directory.resolve(attrs.jid)?.account,
    }))
    if (targets.length === 0) throw new GroupRefusal(400, 'bad-request', 'no participants')
    return [participantResults(action, changeParticipants(group, account, action, targets))]
  })
}

function settingChange(setting: GroupSetting) {
  return memberQuery((group, account) => changeSetting(group, account, setting))
}

/**
 * A linked device creates a group: it becomes the creator, the participants it names must be on the network;
 * those whose privacy refuses adds are left out and named in the answer with an invitation, as on WhatsApp.
 */
const answerCreate = accountQuery((account, { network, session }, create) => {
  const targets = children(create, 'participant').map(({ attrs }) => ({
    jid: attrs.jid ?? '',
    account: network.directory.resolve(attrs.jid)?.account,
  }))
  if (targets.some((target) => target.account === undefined))
    throw new GroupRefusal(400, 'bad-request', 'unknown participant')
  const subject = create?.attrs.subject ?? ''
  if (!subject.trim() || subject.length > 100) throw new GroupRefusal(406, 'not-acceptable', 'subject')
  const known = targets.flatMap(({ jid, account: member }) => (member ? [{ jid, account: member }] : []))
  // `<parent>` makes a community; `<linked_parent>` a group made inside one (linked as it is made).
  if (child(create, 'parent')) {
    const description = textOf(child(child(create, 'description'), 'body')) || null
    const { community, announcement, refused } = createCommunity(
      network,
      account,
      subject,
      description,
      known,
    )
    announceCommunityCreated(community, announcement, session?.device)
    return [groupNode(community, { refused: refused.map(participantResultNode) })]
  }
  const parentJid = child(create, 'linked_parent')?.attrs.jid
  const parent = parentJid === undefined ? undefined : communityFor(network, parentJid, account)
  if (parent) requireCommunityAdmin(parent, account)
  const { group, refused } = createGroup(network, account, subject, known, { linkedParent: parent?.jid })
  announceGroupCreated(group, session?.device)
  if (parent) joinCommunity(network, parent, group, account)
  return [groupNode(group, { refused: refused.map(participantResultNode) })]
})

/** A community query by one of its members, sent to the community (`to` its jid). */
function communityQuery(
  handle: (
    community: Group,
    account: Account,
    ctx: StanzaContext,
    first: BinaryNode | undefined,
  ) => BinaryNode[],
) {
  return memberQuery((group, account, ctx, first) =>
    handle(communityFor(ctx.network, group.jid, account), account, ctx, first),
  )
}

/** The groups a links or unlink query names (`<group jid>`, inside its `<link>` for links). */
function namedGroups(first: BinaryNode | undefined): string[] {
  const holders = first?.tag === 'links' ? children(first, 'link') : [first]
  const groups = holders.flatMap((holder) => children(holder, 'group').map(({ attrs }) => attrs.jid ?? ''))
  if (groups.length === 0) throw new GroupRefusal(400, 'bad-request', 'no group named')
  return groups
}

export function registerGroupQueries(router: StanzaRouter): void {
  router
    .iq(
      'w:g2',
      'get',
      'query',
      memberQuery((group) => [groupNode(group)]),
    )
    .iq(
      'w:g2',
      'get',
      'participating',
      accountQuery((account, { network }) => [
        node(
          'groups',
          {},
          network.groups.of(account).map((group) => groupNode(group)),
        ),
      ]),
    )
    .iq('w:g2', 'set', 'create', answerCreate)
    .iq(
      'w:g2',
      'get',
      'sub_groups',
      communityQuery((community, _account, { network }) => [subGroupsNode(network, community)]),
    )
    .iq(
      'w:g2',
      'set',
      'links',
      communityQuery((community, account, { network }, links) => [
        node('links', {}, [
          node(
            'link',
            { link_type: 'sub_group' },
            namedGroups(links).map((jid) =>
              node('group', { jid: linkGroup(network, community, jid, account).jid }),
            ),
          ),
        ]),
      ]),
    )
    .iq(
      'w:g2',
      'set',
      'unlink',
      communityQuery((community, account, { network }, unlink) => [
        node(
          'unlink',
          { unlink_type: 'sub_group' },
          namedGroups(unlink).map((jid) =>
            node('group', { jid: unlinkGroup(network, community, jid, account).jid }),
          ),
        ),
      ]),
    )
    .iq(
      'w:g2',
      'set',
      'subject',
      memberQuery((group, account, _ctx, subject) => setSubject(group, account, textOf(subject) ?? '')),
    )
    .iq(
      'w:g2',
      'set',
      'description',
      memberQuery((group, account, _ctx, description) =>
        setDescription(
          group,
          account,
          description?.attrs.delete === 'true' ? null : (textOf(child(description, 'body')) ?? ''),
        ),
      ),
    )
    .iq('w:g2', 'set', 'add', participantChange('add'))
    .iq('w:g2', 'set', 'remove', participantChange('remove'))
    .iq('w:g2', 'set', 'promote', participantChange('promote'))
    .iq('w:g2', 'set', 'demote', participantChange('demote'))
    .iq('w:g2', 'set', 'announcement', settingChange('announcement'))
    .iq('w:g2', 'set', 'not_announcement', settingChange('not_announcement'))
    .iq(
      'w:g2',
      'set',
      'ephemeral',
      memberQuery((group, account, _ctx, ephemeral) => {
        const seconds = Number(ephemeral?.attrs.expiration)
        if (!Number.isInteger(seconds) || seconds <= 0)
          throw new GroupRefusal(400, 'bad-request', 'expiration must be a positive number of seconds')
        setGroupEphemeral(group, account, seconds)
      }),
    )
    .iq(
      'w:g2',
      'set',
      'not_ephemeral',
      memberQuery((group, account) => setGroupEphemeral(group, account, 0)),
    )
    .iq('w:g2', 'set', 'locked', settingChange('locked'))
    .iq('w:g2', 'set', 'unlocked', settingChange('unlocked'))
    // Leaving names its groups in the query (`to="@g.us"`).
    .iq(
      'w:g2',
      'set',
      'leave',
      accountQuery((account, { network }, leave) => {
        const groups = children(leave, 'group').map(({ attrs }) =>
          network.groups.get(attrs.id?.includes('@') ? attrs.id : `${attrs.id}@g.us`),
        )
        if (groups.length === 0 || groups.some((group) => !group?.has(account)))
          throw new GroupRefusal(404, 'item-not-found', 'not a member')
        for (const group of groups) if (group) leaveGroup(group, account)
        return [
          node(
            'leave',
            {},
            groups.map((group) => node('group', { id: group?.jid ?? '' })),
          ),
        ]
      }),
    )
    // The invite code: on a group, get it (get) or make a new one (set); on @g.us, look one up (get) or join (set).
    .iq('w:g2', 'get', 'invite', (ctx, iq, invite) => {
      const code = invite?.attrs.code
      if (!code)
        return memberQuery((group, account) => [node('invite', { code: inviteCode(group, account, false) })])(
          ctx,
          iq,
          invite,
        )
      return accountQuery(() => [groupNode(inviteInfo(ctx.network, code), { participants: false })])(
        ctx,
        iq,
        invite,
      )
    })
    .iq('w:g2', 'set', 'invite', (ctx, iq, invite) => {
      const code = invite?.attrs.code
      if (!code)
        return memberQuery((group, account) => [node('invite', { code: inviteCode(group, account, true) })])(
          ctx,
          iq,
          invite,
        )
      return accountQuery((account, { network }) => [
        node('group', { jid: joinByInvite(network, account, code).jid }),
      ])(ctx, iq, invite)
    })
    // An invitation received in a message (a refused add): accepting it joins the group.
    .iq(
      'w:g2',
      'set',
      'accept',
      accountQuery((account, { network }, accept) => {
        const group = joinByInvite(network, account, accept?.attrs.code ?? '')
        return [node('group', { jid: group.jid })]
      }),
    )
}
