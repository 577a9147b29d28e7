import type { Account } from '../accounts/account'
import type { Group } from '../groups/group-registry'
import type { SandboxNetwork } from '../network'
import { node, unixNow } from '../stanzas/binary-node'
import type { SandboxInboxEntry } from './inbox'
import { textContent } from './outgoing-content'
import { sendFromPhone } from './phone-sender'

export interface ContactReceipt {
  /** The account whose phone received the message. */
  recipient: Account
  /** The account that sent it (all of its linked devices hear about the receipts). */
  sender: Account
  id: string
  /** For 1:1: the recipient JID exactly as the sender addressed it. */
  chatJid: string
  group: Group | undefined
  entry: SandboxInboxEntry
}

function sendReceipt(
  network: SandboxNetwork,
  receipt: ContactReceipt,
  type: 'read' | 'played' | undefined,
): void {
  const { recipient, sender, group, id } = receipt
  const attrs: Record<string, string> = group
    ? { from: group.jid, participant: recipient.lidJid, id, t: String(unixNow()) }
    : { from: receipt.chatJid, id, t: String(unixNow()) }
  if (type) attrs.type = type
  for (const device of sender.activeDevices()) device.deliver(node('receipt', attrs))
  network.log.trace({ id, type: type ?? 'delivery' }, 'contact receipt sent')
}

/**
 * What a simulated contact does with a message from a linked device: a delivered receipt, then a read
 * receipt (and a played one for a voice note, as the apps send once it is listened to), then its
 * auto-reply if it has one. Spaced out so each reaches the client as its own update.
 */
export function acknowledgeAsContact(network: SandboxNetwork, receipt: ContactReceipt): void {
  const delay = network.timings.receiptDelayMs
  network.later(delay, () => sendReceipt(network, receipt, undefined))
  network.later(delay * 2, async () => {
    sendReceipt(network, receipt, 'read')
    const { recipient, entry, group, sender } = receipt
    if (entry.ptt) network.later(delay, () => sendReceipt(network, receipt, 'played'))
    if (recipient.autoReply === 'echo' && entry.type === 'text' && entry.text !== null) {
      const target = group ? { group } : { account: sender }
      await sendFromPhone(network, recipient, target, textContent(`echo: ${entry.text}`))
    }
  })
}
