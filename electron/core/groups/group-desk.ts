import type { Limits } from '../config'
import { AppError } from '../errors'
import type { EventSink } from '../contract/events'
import type { InstanceBehaviours } from '../contract/instance'
import type { Logger } from '../logger'
import { type PictureInput, pictureGiven } from '../contract/media'
import { isOwn } from '../contract/ids'
import type {
  SentAnswer,
  WaAccount,
  WaConnection,
  WaGroupChange,
  WaOutgoingContent,
  WaParticipantResult,
} from '../contract/network'
import { groupEvents } from './group-change-events'
import {
  checkDescription,
  checkSubject,
  INVITE_LINK_BASE,
  parseGroupId,
  parseInviteCode,
  parseParticipants,
} from './group-input'
import type { GroupSummary, GroupView } from '../contract/group'
import { groupSummary, groupView } from './group-view'
import { applySteps, checkRights, type GroupStep } from './group-update'

export type ParticipantAction = 'add' | 'remove' | 'promote' | 'demote'

/** What became of one participant of a change. */
export interface ParticipantOutcome {
  participant: string
  result:
    | 'added'
    | 'removed'
    | 'promoted'
    | 'demoted'
    | 'already_member'
    | 'not_member'
    | 'not_on_network'
    | 'invite_required'
    | 'refused'
  /** For invite_required: the invitation the network made, and the message that carried it when sent. */
  invite: { code: string; link: string; expiration: number; message_id: string | null } | null
}

export interface GroupChangeInput {
  subject?: string
  description?: string
  onlyAdminsSend?: boolean
  onlyAdminsEdit?: boolean
  picture?: PictureInput
}

export interface GroupDeskDeps {
  limits: Limits
  logger: Logger
  events: EventSink
  /** Sends a message to a number or chat id (the messages part's sender): invites go out through it. */
  sender: {
    sendTo(instanceId: string, number: string, build: () => Promise<WaOutgoingContent>): Promise<SentAnswer>
  }
  /** Reads a picture under the media limits (the messages part's loader); anything but an image is refused. */
  loadPicture(input: PictureInput): Promise<{ data: Buffer }>
  behaviours(instanceId: string): InstanceBehaviours
  connection(instanceId: string): Promise<WaConnection>
}

const DONE = { add: 'added', remove: 'removed', promote: 'promoted', demote: 'demoted' } as const

function outcome(action: ParticipantAction, result: WaParticipantResult): ParticipantOutcome['result'] {
  if (result.status === '200') return DONE[action]
  if (result.status === '409' && action === 'add') return 'already_member'
  if (result.status === '404') return action === 'add' ? 'not_on_network' : 'not_member'
  if (result.status === '403' && result.addRequest) return 'invite_required'
  return 'refused'
}

function numberOf(jid: string): string {
  return jid.endsWith('@s.whatsapp.net') ? (jid.split('@')[0] ?? jid) : jid
}

/**
 * Checks that every phone number is on the network before a group is made with them, so that one the network
 * would refuse makes nothing: participant_not_found names each (LIDs are addresses the network gave, kept).
 */
export async function requireOnNetwork(connection: WaConnection, members: readonly string[]): Promise<void> {
  const phones = members.filter((jid) => jid.endsWith('@s.whatsapp.net')).map(numberOf)
  if (phones.length === 0) return
  const missing = (await connection.lookup(phones)).filter((found) => !found.jid).map((found) => found.number)
  if (missing.length === 0) return
  throw new AppError(
    'participant_not_found',
    `${missing.length === 1 ? 'This number is' : 'These numbers are'} not on the network: ${missing.join(', ')}. No group was made.`,
    { details: { parameter: 'participants', numbers: missing } },
  )
}

/** The participants the network left out of a new group or community, each with the invitation it made. */
export function notAdded(refused: readonly WaParticipantResult[]): ParticipantOutcome[] {
  return refused.map((result) => ({
    participant: numberOf(result.jid),
    result: outcome('add', result),
    invite: result.addRequest && {
      code: result.addRequest.code,
      link: `${INVITE_LINK_BASE}${result.addRequest.code}`,
      expiration: result.addRequest.expiration,
      message_id: null,
    },
  }))
}

/** The account's groups: read, made, administered, joined and left, and their changes as events. */
export class GroupManagement {
  private readonly log: Logger

  constructor(private readonly deps: GroupDeskDeps) {
    this.log = deps.logger.child({ module: 'groups' })
  }

  async list(instanceId: string): Promise<GroupSummary[]> {
    const { groups, account } = await this.deps.connection(instanceId)
    return (await groups.list()).map((group) => groupSummary(group, account))
  }

  async get(instanceId: string, groupId: string): Promise<GroupView> {
    const id = parseGroupId(groupId)
    const { groups, account } = await this.deps.connection(instanceId)
    return groupView(await groups.get(id), account)
  }

  /**
   * Makes a group; every phone number is checked on the network first. Answers the group and, only when the
   * network left someone out (their privacy refuses adds), who and why, with the invitation it made.
   */
  async create(
    instanceId: string,
    subject: string,
    participants: readonly string[],
  ): Promise<{ group: GroupView; not_added?: ParticipantOutcome[] }> {
    const name = checkSubject(subject)
    const members = parseParticipants(participants)
    const connection = await this.deps.connection(instanceId)
    const { groups, account } = connection
    await requireOnNetwork(connection, members)
    const { group, refused } = await groups.create(name, members)
    // The network tells the account's other devices; the one that made the group hears only the answer.
    this.changed(
      instanceId,
      { kind: 'created', group, author: account.lid, authorPhone: account.number },
      account,
    )
    const view = groupView(group, account)
    if (refused.length === 0) return { group: view }
    return { group: view, not_added: notAdded(refused) }
  }

  /**
   * Adds, removes, promotes or demotes members, answering each one's outcome. An add the person's privacy
   * refused comes back with the invitation the network made; `sendInvite` sends it to them as a message.
   */
  async changeParticipants(
    instanceId: string,
    groupId: string,
    action: ParticipantAction,
    participants: readonly string[],
    options: { sendInvite?: boolean; inviteText?: string } = {},
  ): Promise<ParticipantOutcome[]> {
    const id = parseGroupId(groupId)
    const members = parseParticipants(participants)
    const { groups } = await this.deps.connection(instanceId)
    const results = await groups.changeParticipants(id, action, members)
    const subject =
      options.sendInvite && results.some((r) => r.addRequest) ? (await groups.get(id)).subject : ''
    const outcomes: ParticipantOutcome[] = []
    for (const result of results) {
      const invite = result.addRequest && {
        code: result.addRequest.code,
        link: `${INVITE_LINK_BASE}${result.addRequest.code}`,
        expiration: result.addRequest.expiration,
        message_id: options.sendInvite
          ? await this.sendInvite(instanceId, id, subject, result, options.inviteText)
          : null,
      }
      outcomes.push({
        participant: numberOf(result.jid),
        result: outcome(action, result),
        invite: invite || null,
      })
    }
    return outcomes
  }

  /**
   * Changes what is given, all or nothing: every value, the picture and the account's rights (against the
   * group read from the network) are checked before anything is sent. Answers what changed.
   */
  async update(instanceId: string, groupId: string, change: GroupChangeInput): Promise<string[]> {
    const id = parseGroupId(groupId)
    const subject = change.subject === undefined ? undefined : checkSubject(change.subject)
    const description = change.description === undefined ? undefined : checkDescription(change.description)
    const hasPicture = pictureGiven(change.picture)
    const given = [subject, description, change.onlyAdminsSend, change.onlyAdminsEdit].some(
      (v) => v !== undefined,
    )
    if (!given && !hasPicture) {
      throw new AppError(
        'missing_parameter',
        'Give what to change: subject, description, only_admins_send, only_admins_edit or a picture.',
        {
          details: {
            parameters: ['subject', 'description', 'only_admins_send', 'only_admins_edit', 'media_url'],
          },
        },
      )
    }
    const image = hasPicture ? await this.deps.loadPicture(change.picture as PictureInput) : undefined
    const { groups, account } = await this.deps.connection(instanceId)
    if (image) await groups.checkPicture(image.data)
    const steps: GroupStep[] = []
    if (subject !== undefined)
      steps.push({ field: 'subject', send: (g, group) => g.setSubject(group, subject) })
    if (description !== undefined)
      steps.push({ field: 'description', send: (g, group) => g.setDescription(group, description) })
    const { onlyAdminsSend, onlyAdminsEdit } = change
    if (onlyAdminsSend !== undefined) {
      steps.push({
        field: 'only_admins_send',
        send: (g, group) => g.setSetting(group, onlyAdminsSend ? 'announcement' : 'not_announcement'),
      })
    }
    if (onlyAdminsEdit !== undefined) {
      steps.push({
        field: 'only_admins_edit',
        send: (g, group) => g.setSetting(group, onlyAdminsEdit ? 'locked' : 'unlocked'),
      })
    }
    if (image) steps.push({ field: 'picture', send: (g, group) => g.setPicture(group, image.data) })
    checkRights(await groups.get(id), account, steps)
    return applySteps(groups, id, steps)
  }

  /** The group's invite code and link; `revoke` replaces it (the old one stops working). */
  async invite(
    instanceId: string,
    groupId: string,
    revoke: boolean,
  ): Promise<{ code: string; link: string }> {
    const id = parseGroupId(groupId)
    const { groups } = await this.deps.connection(instanceId)
    const code = await groups.inviteCode(id, revoke)
    return { code, link: `${INVITE_LINK_BASE}${code}` }
  }

  /** What an invite opens, without joining. */
  async inviteInfo(instanceId: string, codeOrLink: string): Promise<GroupSummary> {
    const code = parseInviteCode(codeOrLink)
    const { groups, account } = await this.deps.connection(instanceId)
    return groupSummary(await groups.inviteInfo(code), account)
  }

  /** Joins by an invite; answers the group's id. */
  async join(instanceId: string, codeOrLink: string): Promise<string> {
    const code = parseInviteCode(codeOrLink)
    const { groups } = await this.deps.connection(instanceId)
    return groups.join(code)
  }

  async leave(instanceId: string, groupId: string): Promise<void> {
    const id = parseGroupId(groupId)
    const { groups } = await this.deps.connection(instanceId)
    await groups.leave(id)
  }

  /**
   * Announces a change the network reported. An instance that ignores groups hears nothing of them; when
   * the account itself was added, group.joined follows with the group as it is now.
   */
  changed(instanceId: string, change: WaGroupChange, account: WaAccount): void {
    if (this.deps.behaviours(instanceId).ignore_groups) return
    for (const { event, data } of groupEvents(change, account)) this.deps.events.emit(instanceId, event, data)
    if (
      change.kind === 'participants' &&
      change.action === 'add' &&
      change.participants.some((p) => isOwn(p, account))
    ) {
      this.announceJoined(instanceId, change).catch((error: unknown) =>
        this.log.warn(
          { err: error, instanceId, group: change.group },
          'reading a group the account joined failed',
        ),
      )
    }
  }

  private async announceJoined(instanceId: string, change: Extract<WaGroupChange, { kind: 'participants' }>) {
    const { groups, account } = await this.deps.connection(instanceId)
    const group = await groups.get(change.group)
    const [joined] = groupEvents(
      { kind: 'created', group, author: change.author, authorPhone: change.authorPhone },
      account,
    )
    if (joined) this.deps.events.emit(instanceId, joined.event, joined.data)
  }

  private async sendInvite(
    instanceId: string,
    group: string,
    subject: string,
    result: WaParticipantResult,
    text: string | undefined,
  ): Promise<string | null> {
    const request = result.addRequest as { code: string; expiration: number }
    try {
      const sent = await this.deps.sender.sendTo(instanceId, result.jid, async () => ({
        kind: 'group_invite',
        group,
        subject,
        code: request.code,
        expiration: request.expiration,
        text: text ?? `Join "${subject}" on WhatsApp`,
      }))
      return sent.key.id
    } catch (error) {
      this.log.warn({ err: error, instanceId, group }, 'sending a group invitation failed')
      return null
    }
  }
}
