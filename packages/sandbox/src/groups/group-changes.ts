import { randomBytes } from 'node:crypto'
import type { Account } from '../accounts/account'
import type { SandboxNetwork } from '../network'
import { type BinaryNode, node, unixNow } from '../stanzas/binary-node'
import { notifyGroup, participantNode } from './group-notifications'
import type { Group, GroupKind } from './group-registry'

/** Longest subject and description the network takes. */
export const SUBJECT_CHARS = 100
export const DESCRIPTION_CHARS = 2048
/** How long an invitation sent in place of a refused add stays valid. */
const ADD_REQUEST_SECONDS = 3 * 24 * 3600

/** The network refuses a group change: the iq error it answers. */
export class GroupRefusal extends Error {
  constructor(
    readonly code: number,
    readonly text: string,
    why: string,
  ) {
    super(why)
  }
}

export type ParticipantAction = 'add' | 'remove' | 'promote' | 'demote'

/** What happened to one participant of a change; `error` as the network writes it (403, 404, 409). */
export interface ParticipantResult {
  /** The participant as the request named it. */
  jid: string
  account: Account | undefined
  error: '403' | '404' | '409' | undefined
  /** For an add the participant's privacy refused: the invitation the network made instead. */
  addRequest?: { code: string; expiration: number }
}

function requireMember(group: Group, actor: Account): void {
  if (!group.has(actor)) throw new GroupRefusal(404, 'item-not-found', 'not a member of the group')
}

export function requireAdmin(group: Group, actor: Account): void {
  requireMember(group, actor)
  if (!group.isAdmin(actor)) throw new GroupRefusal(403, 'forbidden', 'only admins may do that')
}

/** Subject, description and picture: any member unless only admins edit the group's info. */
function requireInfoEditor(group: Group, actor: Account): void {
  requireMember(group, actor)
  if (group.restrict && !group.isAdmin(actor))
    throw new GroupRefusal(403, 'forbidden', 'only admins edit this group')
}

/** Whether the account's privacy lets `actor` add it to groups (`all`, or none of the others for now). */
function addAllowed(account: Account): boolean {
  const setting = account.privacy.groupadd
  return setting === undefined || setting === 'all'
}

/** An invitation in place of an add the account's privacy refused, kept by the group until used or expired. */
function addRequestFor(group: Group, account: Account): { code: string; expiration: number } {
  const addRequest = {
    code: randomBytes(12).toString('base64url'),
    expiration: unixNow() + ADD_REQUEST_SECONDS,
  }
  group.keepAddRequest(addRequest.code, account, addRequest.expiration)
  return addRequest
}

function resultOf(
  group: Group,
  action: ParticipantAction,
  jid: string,
  account: Account | undefined,
): ParticipantResult {
  if (!account) return { jid, account, error: '404' }
  const member = group.has(account)
  if (action === 'add') {
    if (member) return { jid, account, error: '409' }
    if (!addAllowed(account)) return { jid, account, error: '403', addRequest: addRequestFor(group, account) }
    return { jid, account, error: undefined }
  }
  return { jid, account, error: member ? undefined : '404' }
}

/**
 * An admin adds, removes, promotes or demotes members. Each participant gets its own result; the ones
 * changed are announced to every member device in one notification (removed members are told too).
 */
export function changeParticipants(
  group: Group,
  actor: Account,
  action: ParticipantAction,
  targets: Array<{ jid: string; account: Account | undefined }>,
): ParticipantResult[] {
  requireAdmin(group, actor)
  const results = targets.map(({ jid, account }) => resultOf(group, action, jid, account))
  const changed = results.flatMap((result) =>
    result.error === undefined && result.account ? [result.account] : [],
  )
  for (const account of changed) {
    if (action === 'add') group.add(account)
    else if (action === 'remove') group.remove(account)
    else group.setAdmin(account, action === 'promote')
  }
  if (changed.length > 0) {
    notifyGroup(group, actor, node(action, {}, changed.map(participantNode)), {
      alsoTo: action === 'remove' ? changed : [],
    })
  }
  return results
}

/**
 * Makes a group as WhatsApp does: participants whose privacy refuses adds are left out, each answered with
 * an invitation in place of the add (403), and the group is made with the others.
 */
export function createGroup(
  network: SandboxNetwork,
  creator: Account,
  subject: string,
  targets: Array<{ jid: string; account: Account }>,
  kind: GroupKind = {},
): { group: Group; refused: ParticipantResult[] } {
  const allowed = (account: Account) => account === creator || addAllowed(account)
  const group = network.groups.create(
    subject,
    creator,
    targets.flatMap(({ account }) => (allowed(account) ? [account] : [])),
    kind,
  )
  const refused = targets
    .filter(({ account }) => !allowed(account))
    .map(({ jid, account }): ParticipantResult => ({
      jid,
      account,
      error: '403',
      addRequest: addRequestFor(group, account),
    }))
  return { group, refused }
}

/** A member leaves (also the way a member removed by nobody else is told apart: actor = participant). */
export function leaveGroup(group: Group, account: Account): void {
  requireMember(group, account)
  group.remove(account)
  notifyGroup(group, account, node('remove', {}, [participantNode(account)]), { alsoTo: [account] })
}

export function setSubject(group: Group, actor: Account, subject: string): void {
  requireInfoEditor(group, actor)
  if (!subject.trim() || subject.length > SUBJECT_CHARS)
    throw new GroupRefusal(406, 'not-acceptable', 'subject is empty or too long')
  group.rename(subject, actor)
  const { at } = group.subjectSet
  notifyGroup(
    group,
    actor,
    node('subject', { subject, s_o: actor.lidJid, s_o_pn: actor.pnJid, s_t: String(at) }),
  )
}

/** Sets the description; null or empty removes it. */
export function setDescription(group: Group, actor: Account, text: string | null): void {
  requireInfoEditor(group, actor)
  if (text && text.length > DESCRIPTION_CHARS)
    throw new GroupRefusal(406, 'not-acceptable', 'description is too long')
  const description = group.describe(text || null, actor)
  notifyGroup(
    group,
    actor,
    description
      ? node('description', { id: description.id }, [node('body', {}, Buffer.from(description.text, 'utf8'))])
      : node('description', { id: randomBytes(8).toString('hex').toUpperCase(), delete: 'true' }),
  )
}

/** The group settings an admin switches, by their notification tags. */
export type GroupSetting = 'announcement' | 'not_announcement' | 'locked' | 'unlocked'

export function changeSetting(group: Group, actor: Account, setting: GroupSetting): void {
  requireAdmin(group, actor)
  if (setting === 'announcement' || setting === 'not_announcement')
    group.setAnnounce(setting === 'announcement')
  else group.setRestrict(setting === 'locked')
  notifyGroup(group, actor, node(setting))
}

/**
 * Turns the group's disappearing messages on (`seconds`) or off (0): any member, or only admins when the
 * group's info is locked, as the apps allow; every member is told (`ephemeral` / `not_ephemeral`).
 */
export function setGroupEphemeral(group: Group, actor: Account, seconds: number): void {
  requireInfoEditor(group, actor)
  group.setEphemeral(seconds)
  notifyGroup(
    group,
    actor,
    seconds ? node('ephemeral', { expiration: String(seconds) }) : node('not_ephemeral'),
  )
}

/** A new group picture, served by the media host like an account's. */
export function setGroupPicture(
  network: SandboxNetwork,
  group: Group,
  actor: Account,
  image: Buffer,
): string {
  requireInfoEditor(group, actor)
  const picture = network.pictures.setFor(group.jid, image)
  notifyGroup(group, actor, node('set', { jid: group.jid, id: picture.id, author: actor.lidJid }), {
    type: 'picture',
  })
  return picture.id
}

/** The invite code (admins only); `revoke` makes a new one. */
export function inviteCode(group: Group, actor: Account, revoke: boolean): string {
  requireAdmin(group, actor)
  return revoke ? group.revokeInvite() : group.inviteCode
}

/** Joins by an invite code (a group's link, or an invitation sent for a refused add); answers the group. */
export function joinByInvite(network: SandboxNetwork, account: Account, code: string): Group {
  const group = network.groups.byInvite(code) ?? network.groups.byAddRequest(code, account)
  if (!group) throw new GroupRefusal(404, 'item-not-found', 'no group has that invite code')
  if (group.has(account)) return group
  group.add(account)
  group.dropAddRequest(code)
  notifyGroup(group, account, node('add', { reason: 'invite' }, [participantNode(account)]))
  return group
}

/** The group node an invite code shows before joining (no participants). */
export function inviteInfo(network: SandboxNetwork, code: string): Group {
  const group = network.groups.byInvite(code)
  if (!group) throw new GroupRefusal(404, 'item-not-found', 'no group has that invite code')
  return group
}

/** One participant's result as the network writes it: the participant node, with its error and invitation. */
export function participantResultNode({ jid, account, error, addRequest }: ParticipantResult): BinaryNode {
  return node(
    'participant',
    {
      jid,
      ...(account ? { lid: account.lidJid, phone_number: account.pnJid } : {}),
      ...(error ? { error } : {}),
    },
    addRequest
      ? [node('add_request', { code: addRequest.code, expiration: String(addRequest.expiration) })]
      : undefined,
  )
}

/** The iq result child of a participant change, one participant node per target (with its error). */
export function participantResults(action: ParticipantAction, results: ParticipantResult[]): BinaryNode {
  return node(action, {}, results.map(participantResultNode))
}
