import {
  type BaileysEventMap,
  type BinaryNode,
  getBinaryNodeChild,
  type GroupMetadata,
  jidNormalizedUser,
  type WAMessage,
  WAMessageStubType,
} from '@whiskeysockets/baileys'
import { mapGroup } from './wa-groups'
import type { WaGroupChange } from '../contract/network'

/** Finds the phone number behind a LID, from the group's members or the session's LID mapping. */
export type PhoneResolver = (jid: string) => Promise<string | null>

type ParticipantsUpdate = BaileysEventMap['group-participants.update']
type GroupUpdate = BaileysEventMap['groups.update'][number]

function userOf(jid: string): string {
  return (jid.split('@')[0] ?? '').split(':')[0] ?? ''
}

/**
 * A phone resolver reading the group's members (cached, or else fetched once: notifications name who acted
 * by LID), then the session's LID mapping.
 */
export function phoneResolver(
  members: (group: string) => Promise<GroupMetadata | undefined>,
  lidToPhone: (lid: string) => Promise<string | null>,
): (group: string) => PhoneResolver {
  return (group) => async (jid) => {
    if (jid.endsWith('@s.whatsapp.net')) return userOf(jid)
    if (!jid.endsWith('@lid')) return null
    const lid = jidNormalizedUser(jid)
    const mapped = await lidToPhone(lid).catch(() => null)
    if (mapped) return userOf(mapped)
    const metadata = await members(group).catch(() => undefined)
    const member = metadata?.participants.find((p) => jidNormalizedUser(p.id) === lid)
    return member?.phoneNumber ? userOf(member.phoneNumber) : null
  }
}

async function authorOf(
  author: string | undefined | null,
  resolve: PhoneResolver,
): Promise<{ author: string | null; authorPhone: string | null }> {
  if (!author) return { author: null, authorPhone: null }
  return { author: jidNormalizedUser(author), authorPhone: await resolve(author) }
}

/** A member change (add, remove, promote, demote; a leave is a remove by the member itself). */
export async function participantsChange(
  update: ParticipantsUpdate,
  resolve: PhoneResolver,
): Promise<WaGroupChange | undefined> {
  const { action } = update
  if (action !== 'add' && action !== 'remove' && action !== 'promote' && action !== 'demote') return undefined
  const participants = await Promise.all(
    update.participants.map(async (participant) => {
      const id = jidNormalizedUser(participant.id)
      const lid = id.endsWith('@lid') ? id : participant.lid ? jidNormalizedUser(participant.lid) : null
      const phone = participant.phoneNumber ? userOf(participant.phoneNumber) : await resolve(id)
      return { phone, lid }
    }),
  )
  return {
    kind: 'participants',
    group: update.id,
    action,
    participants,
    ...(await authorOf(update.author, resolve)),
  }
}

/**
 * A change of the group's info, as a notification announced it. Baileys also emits groups.update with whole
 * metadata when it fetches the account's groups: those carry no author field and are not changes.
 */
export async function infoChange(
  update: GroupUpdate,
  resolve: PhoneResolver,
): Promise<WaGroupChange | undefined> {
  if (!update.id || !('author' in update) || 'participants' in update) return undefined
  const changes: Extract<WaGroupChange, { kind: 'updated' }>['changes'] = {}
  if (update.subject !== undefined) changes.subject = update.subject
  if ('desc' in update) changes.description = update.desc ?? null
  if (update.announce !== undefined) changes.announce = update.announce
  if (update.restrict !== undefined) changes.restrict = update.restrict
  if (Object.keys(changes).length === 0) return undefined
  return { kind: 'updated', group: update.id, changes, ...(await authorOf(update.author, resolve)) }
}

/** Whether a message is the stub that announces a new group picture. */
export function isPictureChange(message: WAMessage): boolean {
  return (
    message.messageStubType === WAMessageStubType.GROUP_CHANGE_ICON &&
    Boolean(message.key.remoteJid?.endsWith('@g.us'))
  )
}

/** A new group picture (a message isPictureChange took). */
export async function pictureChange(message: WAMessage, resolve: PhoneResolver): Promise<WaGroupChange> {
  const group = message.key.remoteJid as string
  const author = message.key.participant ?? message.participant
  return { kind: 'updated', group, changes: { picture: true }, ...(await authorOf(author, resolve)) }
}

/** A group the account is in from its creation (made by it on any device, or by someone who added it). */
export async function groupCreated(
  metadata: GroupMetadata & { author?: string },
  resolve: PhoneResolver,
): Promise<WaGroupChange> {
  const group = mapGroup(metadata)
  return { kind: 'created', group, ...(await authorOf(metadata.author ?? metadata.owner, resolve)) }
}

/**
 * A community's notification that one of its groups was linked or unlinked (`<link link_type="sub_group">`,
 * `<unlink unlink_type="sub_group">`), which Baileys does not turn into an event. The linked group's own
 * notification (`parent_group`) says the same to its members, who are the community's by then: it only
 * makes cached metadata stale, so that one link is one event.
 */
export async function linkChange(
  notification: BinaryNode,
  resolve: PhoneResolver,
): Promise<Extract<WaGroupChange, { kind: 'linked' | 'unlinked' }> | undefined> {
  const change = getBinaryNodeChild(notification, 'link') ?? getBinaryNodeChild(notification, 'unlink')
  const type = change?.attrs.link_type ?? change?.attrs.unlink_type
  const group = getBinaryNodeChild(change, 'group')
  const community = notification.attrs.from
  if (!change || type !== 'sub_group' || !group?.attrs.jid || !community) return undefined
  return {
    kind: change.tag === 'link' ? 'linked' : 'unlinked',
    community,
    group: group.attrs.jid,
    subject: group.attrs.subject ?? null,
    ...(await authorOf(notification.attrs.participant, resolve)),
  }
}
