import { randomBytes } from 'node:crypto'
import type { LinkedDevice } from '../accounts/linked-device'
import { node, unixNow } from '../stanzas/binary-node'
import type { Group } from './group-registry'
import { groupNode } from './group-queries'

/** Tells every linked device of every member that the group exists (Baileys emits groups.upsert). */
export function announceGroupCreated(group: Group, except?: LinkedDevice): void {
  const { creator } = group
  const attrs = {
    from: group.jid,
    type: 'w:gp2',
    id: randomBytes(8).toString('hex'),
    t: String(unixNow()),
    participant: creator.lidJid,
    participant_pn: creator.pnJid,
    notify: creator.name,
  }
  const notification = node('notification', attrs, [node('create', {}, [groupNode(group)])])
  for (const { account } of group.members) {
    for (const device of account.activeDevices()) if (device !== except) device.deliver(notification)
  }
}
