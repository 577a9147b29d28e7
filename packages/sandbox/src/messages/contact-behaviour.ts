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

/** Messages whose recipient's phone has sent its delivery receipt (each inbox entry is one recipient's copy). */
const delivered = new WeakSet<SandboxInboxEntry>()

/**
 * The delivery receipt, once per message and recipient: a phone that reads a message has received it, so a read
 * sent before the delayed delivery receipt came sends that one first, as a phone does. (A client that got the
 * read first would have the late delivery receipt take its place: Baileys folds updates of one message that
 * reach it together into the last one.)
 */
function sendDeliveryReceipt(network: SandboxNetwork, receipt: ContactReceipt): void {
  if (delivered.has(receipt.entry)) return
  delivered.add(receipt.entry)
  sendReceipt(network, receipt, undefined)
}

/** Whether the network lets a read receipt through: in a 1:1 chat only when both sides share reads. */
export function readsShown(reader: Account, author: Account, group: Group | undefined): boolean {
  return group !== undefined || (reader.sharesReads && author.sharesReads)
}

/** A phone that is online only while active shows itself online, then offline once it is done. */
function whileActive(
  network: SandboxNetwork,
  phone: Account,
  work: () => Promise<void> | void,
): Promise<void> {
  if (phone.behaviour.online !== 'while_active') return Promise.resolve(work())
  network.presence.setAvailable(phone, true)
  return Promise.resolve(work()).finally(() =>
    network.later(network.timings.receiptDelayMs, () => network.presence.setAvailable(phone, false)),
  )
}

function readMessage(network: SandboxNetwork, receipt: ContactReceipt): Promise<void> {
  const { recipient, sender, group, entry } = receipt
  return whileActive(network, recipient, () => {
    sendDeliveryReceipt(network, receipt)
    if (readsShown(recipient, sender, group)) sendReceipt(network, receipt, 'read')
    const delay = network.timings.receiptDelayMs
    if (entry.ptt) network.later(delay, () => sendReceipt(network, receipt, 'played'))
  })
}

/**
 * The phone opens its chat and reads messages it received (whatever its behaviour says): their authors'
 * devices get the read receipt, as privacy lets through (and a played one for a voice note).
 */
export function readAsContact(network: SandboxNetwork, reader: Account, entries: SandboxInboxEntry[]): void {
  for (const entry of entries) {
    const sender = network.directory.get(entry.from)
    if (!sender) continue
    const group = entry.chat.endsWith('@g.us') ? network.groups.get(entry.chat) : undefined
    const receipt = { recipient: reader, sender, id: entry.id, chatJid: reader.pnJid, group, entry }
    void readMessage(network, receipt)
  }
}

async function echo(network: SandboxNetwork, receipt: ContactReceipt, text: string): Promise<void> {
  const { recipient, group, sender } = receipt
  const target = group ? { group } : { account: sender }
  await whileActive(network, recipient, async () => {
    if (recipient.behaviour.typesBeforeReply && !group) {
      network.presence.showChatState(recipient, sender, 'composing')
      await new Promise<void>((resolve) => network.later(network.timings.receiptDelayMs, resolve))
    }
    await sendFromPhone(network, recipient, target, textContent(`echo: ${text}`))
  })
}

/**
 * What a simulated contact does with a message from a linked device: a delivered receipt, then, as its
 * phone's behaviour says, a read receipt (and a played one for a voice note, as the apps send once it is
 * listened to) at once, after a delay or never; then its auto-reply if it has one (typing first if told to).
 * Spaced out so each reaches the client as its own update.
 */
export function acknowledgeAsContact(network: SandboxNetwork, receipt: ContactReceipt): void {
  const delay = network.timings.receiptDelayMs
  const { reads, readAfterMs } = receipt.recipient.behaviour
  network.later(delay, () => sendDeliveryReceipt(network, receipt))
  if (reads === 'instantly') network.later(delay * 2, () => readMessage(network, receipt))
  if (reads === 'after') network.later(delay + readAfterMs, () => readMessage(network, receipt))
  const { entry } = receipt
  if (receipt.recipient.autoReply === 'echo' && entry.type === 'text' && entry.text !== null) {
    const text = entry.text
    network.later(delay * 2, () => echo(network, receipt, text))
  }
}
