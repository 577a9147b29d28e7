import type { proto } from '@whiskeysockets/baileys'
import type { Account } from '../accounts/account'
import type { LinkedDevice } from '../accounts/linked-device'
import type { Group } from '../groups/group-registry'
import type { LinkedSession, SandboxNetwork } from '../network'
import { deviceAddress } from '../signal/addresses'
import type { EncType } from '../signal/sim-device'
import { bytesOf, child, children, childrenOf, node, unixNow, type BinaryNode } from '../stanzas/binary-node'
import type { StanzaContext } from '../stanzas/stanza-router'
import { handleChannelMessage, isChannelJid } from '../channels/channel-posts'
import { acknowledgeAsContact } from './contact-behaviour'
import { recordInbox } from './inbox-recorder'
import { sendRetryRequest } from './retry-receipts'
import { STATUS_BROADCAST, type SenderKeyAudience } from './status-broadcast'

/** The ack error of a message a non-admin sends to a group where only admins send. */
const ONLY_ADMINS_SEND = '403'

/** One stanza from a linked device, with what the network needs to route its copies. */
interface Outgoing {
  network: SandboxNetwork
  session: LinkedSession
  stanza: BinaryNode
  id: string
  group: Group | undefined
  /** A status update's audience: the poster and the accounts its sender key was distributed to. */
  status: SenderKeyAudience | undefined
  senderAddress: string
  /** Encrypted copies to relay to other linked devices, per device. */
  relays: Map<LinkedDevice, { owner: Account; encs: BinaryNode[] }>
}

function relay(outgoing: Outgoing, owner: Account, device: LinkedDevice, enc: BinaryNode): void {
  const entry = outgoing.relays.get(device)
  if (entry) entry.encs.push(enc)
  else outgoing.relays.set(device, { owner, encs: [enc] })
}

/** A copy addressed to an account's phone: decrypt it and let the contact react. */
async function phoneReceives(outgoing: Outgoing, recipient: Account, enc: BinaryNode): Promise<void> {
  const { network, session, stanza, id } = outgoing
  const type = enc.attrs.type as EncType
  let message: proto.Message
  try {
    message = await recipient.phoneDevice.decrypt(outgoing.senderAddress, type, bytesOf(enc))
  } catch (error) {
    network.log.debug(
      { err: error, id, phone: recipient.phone },
      'contact could not decrypt, asking for a retry',
    )
    sendRetryRequest(network, session, stanza, recipient)
    return
  }
  const distribution = message.senderKeyDistributionMessage
  const audience = outgoing.group ?? outgoing.status
  if (audience && distribution?.axolotlSenderKeyDistributionMessage) {
    await recipient.phoneDevice.acceptSenderKey(
      audience.jid,
      outgoing.senderAddress,
      distribution.axolotlSenderKeyDistributionMessage,
    )
  }
  // The sender's own phone gets a "sent by me" copy: nothing arrives in its inbox.
  if (recipient === session.account) return
  contactReceived(outgoing, recipient, message)
}

function contactReceived(outgoing: Outgoing, recipient: Account, message: proto.IMessage): void {
  const { network, session, stanza, id, group, status } = outgoing
  const entry = recordInbox(network, recipient, {
    id,
    from: session.account,
    chat: (group ?? status)?.jid ?? session.account.phone,
    timestamp: unixNow(),
    message,
  })
  // A status is seen when its viewer opens it (a read receipt), and is never answered.
  if (!entry || status) return
  const chatJid = stanza.attrs.to ?? recipient.pnJid
  acknowledgeAsContact(network, { recipient, sender: session.account, id, chatJid, group, entry })
}

/** The group's sender-key ciphertext: members' phones decrypt it, members' linked devices get it relayed. */
async function groupReceives(outgoing: Outgoing, group: SenderKeyAudience, skmsg: BinaryNode): Promise<void> {
  const { network, session } = outgoing
  for (const { account } of group.members) {
    if (account !== session.account) {
      try {
        const message = await account.phoneDevice.decryptGroup(
          group.jid,
          outgoing.senderAddress,
          bytesOf(skmsg),
        )
        contactReceived(outgoing, account, message)
      } catch (error) {
        network.log.debug({ err: error, phone: account.phone }, 'member has no sender key for this message')
      }
    }
    for (const device of account.activeDevices()) {
      if (device !== session.device) relay(outgoing, account, device, skmsg)
    }
  }
}

function relayedAttrs(outgoing: Outgoing, owner: Account): Record<string, string> {
  const { session, stanza, id } = outgoing
  const group = outgoing.group ?? outgoing.status
  const sender = session.account
  const lidAddressed = (stanza.attrs.to ?? '').endsWith('@lid')
  const base = { id, t: String(unixNow()), type: stanza.attrs.type ?? 'text' }
  if (group) {
    return {
      ...base,
      from: group.jid,
      participant: sender.jid('lid', session.device.id),
      participant_pn: sender.jid('pn', session.device.id),
      addressing_mode: 'lid',
      notify: sender.name,
    }
  }
  if (owner !== sender && !sender.sharesNumberWith(owner.phone)) {
    // To someone it has not shared its number with, an account is its LID alone.
    return { ...base, from: sender.jid('lid', session.device.id), notify: sender.name }
  }
  const from = sender.jid(lidAddressed ? 'lid' : 'pn', session.device.id)
  if (owner === sender) return { ...base, from, recipient: stanza.attrs.to ?? '' }
  const otherForm: Record<string, string> = lidAddressed
    ? { sender_pn: sender.pnJid }
    : { sender_lid: sender.lidJid }
  return { ...base, from, notify: sender.name, ...otherForm }
}

/**
 * Routes a message a linked device sent: to simulated phones (decrypted) and to other linked devices (relayed);
 * then acknowledges it.
 */
export async function handleClientMessage(ctx: StanzaContext, stanza: BinaryNode): Promise<void> {
  const { network, connection } = ctx
  const id = stanza.attrs.id ?? ''
  const to = stanza.attrs.to ?? ''
  if (isChannelJid(to)) return handleChannelMessage(ctx, stanza)
  const refusal = refusalOf(ctx, to)
  if (refusal) {
    ctx.log.debug({ id, to, error: refusal }, 'message refused')
    connection.send(node('ack', { class: 'message', id, from: to, t: String(unixNow()), error: refusal }))
    return
  }
  try {
    await route(ctx, stanza, id, to)
  } finally {
    // Acknowledged once the network has the message for good, as WhatsApp's server does: what a client saw
    // acknowledged is still there after the sandbox restarts.
    await network.state.flushed()
    connection.send(node('ack', { class: 'message', id, from: to, t: String(unixNow()) }))
  }
}

/**
 * The error a send is refused with, before anything reaches anyone: in a group where only admins send, a
 * member who is not one is refused whichever device sends (403, not authorized); a community itself takes
 * no messages (they go to its announcement group or its linked groups).
 */
function refusalOf({ network, session }: StanzaContext, to: string): string | undefined {
  const group = to.endsWith('@g.us') ? network.groups.get(to) : undefined
  if (session && group?.isCommunity) return ONLY_ADMINS_SEND
  if (session && group?.announce && !group.isAdmin(session.account)) return ONLY_ADMINS_SEND
  return undefined
}

/**
 * Who a linked device's status update goes to: the accounts whose devices it gave its sender key under
 * `<participants>` (Baileys encrypts it for every device of its `statusJidList` with each update), and the
 * poster's own devices.
 */
function statusAudience(network: SandboxNetwork, poster: Account, targets: BinaryNode[]): SenderKeyAudience {
  const recipients = targets
    .map((target) => network.directory.resolve(target.attrs.jid ?? '')?.account)
    .filter((account): account is Account => account !== undefined && !account.blocks(poster.phone))
  return network.statusBroadcast.audienceOf(poster, recipients)
}

async function route(ctx: StanzaContext, stanza: BinaryNode, id: string, to: string): Promise<void> {
  const { network, session } = ctx
  if (!session) return
  const group = to.endsWith('@g.us') ? network.groups.get(to) : undefined
  const targets = children(child(stanza, 'participants'), 'to')
  const outgoing: Outgoing = {
    network,
    session,
    stanza,
    id,
    group,
    status: to === STATUS_BROADCAST ? statusAudience(network, session.account, targets) : undefined,
    senderAddress: deviceAddress(session.account, session.device.id),
    relays: new Map(),
  }
  // Pairwise copies: one per device under <participants>, or a single <enc> (peer messages, retries).
  const copies: Array<{ jid: string; enc: BinaryNode }> = targets.flatMap((target) =>
    children(target, 'enc').map((enc) => ({ jid: target.attrs.jid ?? '', enc })),
  )
  const direct = childrenOf(stanza).filter((c) => c.tag === 'enc' && c.attrs.type !== 'skmsg')
  for (const enc of direct) copies.push({ jid: stanza.attrs.participant ?? to, enc })
  for (const { jid, enc } of copies) {
    const resolved = network.directory.resolve(jid)
    if (!resolved) continue
    if (resolved.device === 0) await phoneReceives(outgoing, resolved.account, enc)
    else {
      const device = resolved.account.linkedDevices.get(resolved.device)
      if (device && device !== session.device) relay(outgoing, resolved.account, device, enc)
    }
  }
  const skmsg = childrenOf(stanza).find((c) => c.tag === 'enc' && c.attrs.type === 'skmsg')
  const audience = group ?? outgoing.status
  if (audience && skmsg) await groupReceives(outgoing, audience, skmsg)
  for (const [device, { owner, encs }] of outgoing.relays) {
    device.deliver(node('message', relayedAttrs(outgoing, owner), encs))
  }
}
