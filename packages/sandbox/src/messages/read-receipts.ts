import type { LinkedSession, SandboxNetwork } from '../network'
import { child, node, unixNow, type BinaryNode } from '../stanzas/binary-node'
import { readsShown } from './contact-behaviour'
import { STATUS_BROADCAST } from './status-broadcast'

/**
 * A linked device read (or played) messages another account sent: the author's devices are told, as the
 * network relays receipts, unless privacy stops a 1:1 read (either side's read receipts off). Answers
 * whether the read reached the author, so the author's phone counts it too.
 */
export function relayReadReceipt(
  network: SandboxNetwork,
  session: LinkedSession,
  receipt: BinaryNode,
): boolean {
  const { attrs } = receipt
  const type = attrs.type
  if (type !== 'read' && type !== 'played') return false
  const group = attrs.to?.endsWith('@g.us') ? network.groups.get(attrs.to) : undefined
  // A viewed status names its poster as the participant; who viewed it shows as in a 1:1 chat (privacy).
  const status = attrs.to === STATUS_BROADCAST
  const author = network.directory.resolve(group || status ? attrs.participant : attrs.to)
  const reader = session.account
  if (!author || author.account === reader) return false
  if (type === 'read' && !readsShown(reader, author.account, group)) return false
  const shared = group?.jid ?? (status ? STATUS_BROADCAST : undefined)
  const relayed: Record<string, string> = shared
    ? { from: shared, participant: reader.lidJid, id: attrs.id ?? '', type, t: String(unixNow()) }
    : { from: reader.jid(author.addressing), id: attrs.id ?? '', type, t: String(unixNow()) }
  const list = child(receipt, 'list')
  for (const device of author.account.activeDevices())
    device.deliver(node('receipt', relayed, list ? [list] : undefined))
  return true
}
