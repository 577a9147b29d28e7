import type { Account } from '../accounts/account'
import type { LinkedSession, SandboxNetwork } from '../network'
import { deviceAddress } from '../signal/addresses'
import type { PreKeyBundle } from '../signal/sim-device'
import {
  bytesOf,
  child,
  childrenOf,
  node,
  readUint,
  unixNow,
  uintBytes,
  type BinaryNode,
} from '../stanzas/binary-node'
import { bundleNode, parseSignedPreKey } from '../stanzas/prekey-queries'
import { answerMediaRetry } from './media-retry'
import type { StanzaContext } from '../stanzas/stanza-router'
import { deliverDirect, deliverGroupRetry } from './phone-sender'
import { relayReadReceipt } from './read-receipts'

const KEY_TYPE = Buffer.from([5])
/** A contact asks for the same message at most this many times, then gives up as WhatsApp does. */
const MAX_RETRIES = 3

/**
 * A contact's phone could not decrypt a linked device's message: it sends a retry receipt carrying a
 * fresh key bundle, so the device opens a new session and sends the message again.
 */
export function sendRetryRequest(
  network: SandboxNetwork,
  session: LinkedSession,
  stanza: BinaryNode,
  recipient: Account,
): void {
  const id = stanza.attrs.id ?? ''
  const count = network.countRetryRequest(`${recipient.phone}:${id}`)
  if (count > MAX_RETRIES) return
  const to = stanza.attrs.to ?? ''
  const isGroup = to.endsWith('@g.us')
  const bundle = recipient.phoneDevice.publishBundle()
  const keys = childrenOf(bundleNode(recipient.lidJid, bundle)).filter((c) => c.tag !== 'registration')
  const t = String(unixNow())
  const attrs: Record<string, string> = { id, type: 'retry', from: to, t }
  if (isGroup) attrs.participant = recipient.lidJid
  session.device.deliver(
    node('receipt', attrs, [
      node('retry', { count: String(count), id, t, v: '1' }),
      node('registration', {}, uintBytes(bundle.registrationId, 4)),
      node('keys', {}, keys),
    ]),
  )
  network.log.debug({ id, count }, 'retry receipt sent to linked device')
}

/** The key bundle a retry receipt carries, if it has a complete one. */
function bundleFromRetry(receipt: BinaryNode): PreKeyBundle | undefined {
  const keys = child(receipt, 'keys')
  const identity = bytesOf(child(keys, 'identity'))
  const signed = parseSignedPreKey(child(keys, 'skey'))
  if (!keys || identity.length !== 32 || !signed) return undefined
  const preKey = child(keys, 'key')
  const preKeyValue = bytesOf(child(preKey, 'value'))
  return {
    registrationId: readUint(child(receipt, 'registration')),
    identityKey: Buffer.concat([KEY_TYPE, identity]),
    signedPreKey: {
      keyId: signed.keyId,
      publicKey: Buffer.concat([KEY_TYPE, signed.publicKey]),
      signature: signed.signature,
    },
    ...(preKeyValue.length === 32
      ? {
          preKey: { keyId: readUint(child(preKey, 'id')), publicKey: Buffer.concat([KEY_TYPE, preKeyValue]) },
        }
      : {}),
  }
}

/** A linked device could not decrypt a simulated phone's message: start a new session and send it again. */
async function resendAfterRetry(ctx: StanzaContext, receipt: BinaryNode): Promise<void> {
  const { network, session } = ctx
  const record = network.recentSends.get(receipt.attrs.id)
  if (!session || !record || record.retries >= MAX_RETRIES) return
  network.recentSends.countRetry(record.id)
  const count = Number(child(receipt, 'retry')?.attrs.count ?? '1') || 1
  const { account: owner, device } = session
  const peer = deviceAddress(owner, device.id)
  const phone = record.sender.phoneDevice
  phone.forgetSession(peer)
  await phone.startSession(peer, bundleFromRetry(receipt) ?? device.takeBundle())
  if (record.group) await deliverGroupRetry(record, owner, device, count)
  else await deliverDirect(record, owner, device, count)
  network.log.debug({ id: record.id, count }, 'message sent again after a retry receipt')
}

/** Receipts a linked device sends for what it received: acked, announced, and retries answered. */
export async function handleClientReceipt(ctx: StanzaContext, receipt: BinaryNode): Promise<void> {
  const { attrs } = receipt
  const type = attrs.type ?? 'delivery'
  ctx.connection.send(
    node('ack', {
      class: 'receipt',
      id: attrs.id ?? '',
      from: attrs.to ?? '',
      ...(attrs.type ? { type } : {}),
    }),
  )
  if (!ctx.session) return
  if (type === 'server-error') return answerMediaRetry(ctx, receipt)
  const ids = [attrs.id ?? '', ...childrenOf(child(receipt, 'list')).map((item) => item.attrs.id ?? '')]
  ctx.network.sentReceipts.record(ctx.session.account.phone, {
    device: ctx.session.device.id,
    loggedInAt: ctx.session.loggedInAt,
    at: Date.now(),
    type,
    ids,
  })
  ctx.network.events.emit('receipt', {
    phone: ctx.session.account.phone,
    device: ctx.session.device.id,
    ids,
    type,
    to: attrs.to ?? '',
  })
  if (relayReadReceipt(ctx.network, ctx.session, receipt) && type === 'read')
    ctx.network.recentSends.markRead(ids, unixNow())
  if (type === 'retry') await resendAfterRetry(ctx, receipt)
  else ctx.session.device.mailbox.confirm(ids)
}
