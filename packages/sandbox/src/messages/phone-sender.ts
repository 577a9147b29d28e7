import type { proto } from '@whiskeysockets/baileys'
import type { Account, Addressing } from '../accounts/account'
import type { LinkedDevice } from '../accounts/linked-device'
import type { SandboxNetwork } from '../network'
import { deviceAddress } from '../signal/addresses'
import { node, unixNow, type BinaryNode } from '../stanzas/binary-node'
import { encNode, encryptForDevice, newMessageId } from './device-crypto'
import { recordInbox } from './inbox-recorder'
import type { OutgoingContent } from './outgoing-content'
import type { SentRecord } from './recent-sends'
import type { SenderKeyAudience } from './status-broadcast'

/** A phone sends to an account, or with its sender key to a group or to its status audience. */
export type PhoneSendTarget = { account: Account } | { group: SenderKeyAudience }

/** The attributes of a message stanza from a simulated phone, as the receiving device sees them. */
function stanzaAttrs(record: SentRecord, toOwnDevice: boolean): Record<string, string> {
  const { sender, recipient, group, addressing } = record
  const base = { id: record.id, t: String(record.timestamp), type: record.content.stanzaType }
  if (group) {
    return {
      ...base,
      from: group.jid,
      participant: sender.lidJid,
      participant_pn: sender.pnJid,
      addressing_mode: 'lid',
      notify: sender.name,
    }
  }
  if (toOwnDevice && recipient)
    return { ...base, from: sender.jid(addressing), recipient: recipient.jid(addressing) }
  // To someone it has not shared its number with, an account is its LID alone.
  if (recipient && !sender.sharesNumberWith(recipient.phone))
    return { ...base, from: sender.lidJid, notify: sender.name }
  const otherForm: Record<string, string> =
    addressing === 'pn' ? { sender_lid: sender.lidJid } : { sender_pn: sender.pnJid }
  return { ...base, from: sender.jid(addressing), notify: sender.name, ...otherForm }
}

/** The pairwise payload for one device: the sender's other devices get a "sent by me" wrapper. */
function pairwiseMessage(record: SentRecord, toOwnDevice: boolean): proto.IMessage {
  const { recipient, content } = record
  if (!toOwnDevice || !recipient) return content.message
  return { deviceSentMessage: { destinationJid: recipient.jid(record.addressing), message: content.message } }
}

function senderKeyMessage(group: SenderKeyAudience, distribution: Buffer): proto.IMessage {
  return {
    senderKeyDistributionMessage: { groupId: group.jid, axolotlSenderKeyDistributionMessage: distribution },
  }
}

/** Encrypts a 1:1 message for one linked device and hands it over (or queues it while the device is offline). */
export async function deliverDirect(
  record: SentRecord,
  owner: Account,
  device: LinkedDevice,
  retryCount?: number,
): Promise<void> {
  const toOwnDevice = owner === record.sender
  const ciphertext = await encryptForDevice(
    record.sender,
    owner,
    device,
    pairwiseMessage(record, toOwnDevice),
  )
  const enc = encNode(ciphertext, record.content.mediatype)
  if (retryCount) enc.attrs.count = String(retryCount)
  device.deliver(node('message', stanzaAttrs(record, toOwnDevice), [enc]))
}

/** A retried group message: everything pairwise (sender key and content), as a phone answers a retry receipt. */
export async function deliverGroupRetry(
  record: SentRecord,
  owner: Account,
  device: LinkedDevice,
  retryCount: number,
): Promise<void> {
  const group = record.group
  if (!group) return
  const senderAddress = deviceAddress(record.sender, 0)
  const distribution = await record.sender.phoneDevice.senderKeyDistribution(group.jid, senderAddress)
  const message = { ...record.content.message, ...senderKeyMessage(group, distribution) }
  const enc = encNode(await encryptForDevice(record.sender, owner, device, message), record.content.mediatype)
  enc.attrs.count = String(retryCount)
  group.markSenderKeyHeld(senderAddress, deviceAddress(owner, device.id))
  device.deliver(node('message', stanzaAttrs(record, false), [enc]))
}

async function sendToGroup(
  network: SandboxNetwork,
  record: SentRecord,
  group: SenderKeyAudience,
): Promise<void> {
  const { sender, content } = record
  const senderAddress = deviceAddress(sender, 0)
  const distribution = await sender.phoneDevice.senderKeyDistribution(group.jid, senderAddress)
  const skmsg = await sender.phoneDevice.encryptGroup(group.jid, senderAddress, content.message)
  for (const { account } of group.members) {
    if (account !== sender) {
      recordInbox(network, account, {
        id: record.id,
        from: sender,
        chat: group.jid,
        timestamp: record.timestamp,
        message: content.message,
      })
    }
    for (const device of account.activeDevices()) {
      const encs: BinaryNode[] = []
      const address = deviceAddress(account, device.id)
      if (!group.holdsSenderKey(senderAddress, address)) {
        encs.push(
          encNode(await encryptForDevice(sender, account, device, senderKeyMessage(group, distribution))),
        )
        group.markSenderKeyHeld(senderAddress, address)
      }
      encs.push(encNode({ type: 'skmsg', ciphertext: skmsg }, content.mediatype))
      device.deliver(node('message', stanzaAttrs(record, false), encs))
    }
  }
}

/**
 * A simulated account's phone sends a message: recipients' phones get it in their inbox, every linked
 * device of the recipients gets it encrypted, and the sender's own linked devices get their copy.
 */
export async function sendFromPhone(
  network: SandboxNetwork,
  sender: Account,
  target: PhoneSendTarget,
  content: OutgoingContent,
  addressing: Addressing = 'pn',
): Promise<SentRecord> {
  const record: SentRecord = {
    id: newMessageId(),
    sender,
    recipient: 'account' in target ? target.account : undefined,
    group: 'group' in target ? target.group : undefined,
    addressing,
    timestamp: unixNow(),
    content,
    retries: 0,
  }
  network.recentSends.add(record)
  // The sender's phone has the file, and so has each recipient's phone once the message arrives.
  if (content.file) {
    const holders = record.group ? record.group.members.map((m) => m.account) : [sender, record.recipient]
    for (const holder of holders) if (holder) network.phoneMedia.keep(holder.phone, record.id, content.file)
  }
  if (record.group) {
    await sendToGroup(network, record, record.group)
    return record
  }
  const recipient = record.recipient as Account
  // A blocked sender's message reaches the network (one tick) but never the account that blocked it.
  if (recipient !== sender && !recipient.blocks(sender.phone)) {
    recordInbox(network, recipient, {
      id: record.id,
      from: sender,
      chat: sender.phone,
      timestamp: record.timestamp,
      message: content.message,
    })
    for (const device of recipient.activeDevices()) await deliverDirect(record, recipient, device)
  }
  for (const device of sender.activeDevices()) await deliverDirect(record, sender, device)
  return record
}
