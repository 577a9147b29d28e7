import type { Static } from '@sinclair/typebox'
import { type ByPerson, type GroupEvent, GroupUpdatedEventSchema, type Person } from '../contract/group'
import type { CommunityEvent } from '../contract/community'
import { isOwn } from '../contract/ids'
import type { WaAccount, WaGroupChange } from '../contract/network'
import { groupView } from './group-view'

function byOf(change: { author: string | null; authorPhone: string | null }, account: WaAccount): ByPerson {
  if (!change.author) return null
  const lid = change.author.endsWith('@lid') ? change.author : null
  return {
    jid: change.author,
    phone: change.authorPhone,
    is_me: isOwn({ phone: change.authorPhone, lid }, account),
  }
}

const PARTICIPANT_ACTIONS = {
  add: 'joined',
  remove: 'removed',
  promote: 'promoted',
  demote: 'demoted',
} as const

/**
 * The events a network group change makes: group.participants or group.updated, group.joined when the
 * account itself became a member (the group was made with it, or it was added), community.linked or
 * community.unlinked when a community's groups changed.
 */
export function groupEvents(change: WaGroupChange, account: WaAccount): Array<GroupEvent | CommunityEvent> {
  const by = byOf(change, account)
  switch (change.kind) {
    case 'created':
      return [{ event: 'group.joined', data: { group: groupView(change.group, account), by } }]
    case 'updated': {
      const { subject, description, announce, restrict, picture } = change.changes
      const changes: Static<typeof GroupUpdatedEventSchema>['changes'] = {}
      if (subject !== undefined) changes.subject = subject
      if (description !== undefined) changes.description = description
      if (announce !== undefined) changes.only_admins_send = announce
      if (restrict !== undefined) changes.only_admins_edit = restrict
      if (picture) changes.picture = true
      return [{ event: 'group.updated', data: { group_id: change.group, changes, by } }]
    }
    case 'participants': {
      const participants: Person[] = change.participants.map((p) => ({ ...p, is_me: isOwn(p, account) }))
      const self =
        change.action === 'remove' &&
        participants.length === 1 &&
        (by?.jid === participants[0]?.lid || (by?.phone !== null && by?.phone === participants[0]?.phone))
      const action = self ? 'left' : PARTICIPANT_ACTIONS[change.action]
      return [{ event: 'group.participants', data: { group_id: change.group, action, participants, by } }]
    }
    case 'linked':
    case 'unlinked': {
      const data = {
        community_id: change.community,
        group_id: change.group,
        group_subject: change.subject,
        by,
      }
      return [{ event: change.kind === 'linked' ? 'community.linked' : 'community.unlinked', data }]
    }
  }
}
