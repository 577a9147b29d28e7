import { randomBytes } from 'node:crypto'
import type { Account } from '../accounts/account'
import type { LinkedDevice } from '../accounts/linked-device'
import { type BinaryNode, node, unixNow } from '../stanzas/binary-node'
import type { Group } from './group-registry'
import { groupNode } from './group-node'

/** A member as the w:gp2 notifications name one: LID, with the phone number beside. */
export function participantNode(account: Account): BinaryNode {
  return node('participant', { jid: account.lidJid, phone_number: account.pnJid })
}

/**
 * Tells every linked device of the group's members (and of `alsoTo`, such as members just removed) what
 * `actor` changed, as a `w:gp2` notification (Baileys turns it into group-participants.update or
 * groups.update). The actor's own devices are told too, as the network tells them.
 */
export function notifyGroup(
  group: Group,
  actor: Account,
  change: BinaryNode,
  options: { alsoTo?: Account[]; type?: string; except?: LinkedDevice } = {},
): void {
  const attrs = {
    from: group.jid,
    type: options.type ?? 'w:gp2',
    id: randomBytes(8).toString('hex'),
    t: String(unixNow()),
    participant: actor.lidJid,
    participant_pn: actor.pnJid,
    notify: actor.name,
  }
  const notification = node('notification', attrs, [change])
  const told = new Set<Account>([...group.members.map((member) => member.account), ...(options.alsoTo ?? [])])
  for (const account of told) {
    for (const device of account.activeDevices()) if (device !== options.except) device.deliver(notification)
  }
}

/** Tells every linked device of every member that the group exists (Baileys emits groups.upsert). */
export function announceGroupCreated(group: Group, except?: LinkedDevice): void {
  notifyGroup(group, group.creator, node('create', {}, [groupNode(group)]), { except })
}
