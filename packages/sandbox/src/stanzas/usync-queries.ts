import type { Account } from '../accounts/account'
import { shows } from '../accounts/privacy'
import { bytesOf, child, children, childrenOf, iqResult, node, unixNow, type BinaryNode } from './binary-node'
import type { StanzaContext, StanzaRouter } from './stanza-router'

function deviceList(account: Account | undefined): BinaryNode {
  const devices = account
    ? [
        node('device', { id: '0' }),
        ...account
          .activeDevices()
          .map((device) => node('device', { id: String(device.id), 'key-index': String(device.keyIndex) })),
      ]
    : []
  return node('devices', {}, [node('device-list', {}, devices)])
}

function protocolResult(
  protocol: string,
  account: Account | undefined,
  queriedByLid: boolean,
): BinaryNode | undefined {
  switch (protocol) {
    case 'devices':
      return deviceList(account)
    case 'lid':
      // Baileys 7 fetches sessions by LID only: a phone-number user without its LID cannot be messaged.
      return account && !queriedByLid ? node('lid', { val: account.lidJid }) : undefined
    case 'contact':
      return node('contact', { type: account ? 'in' : 'out' })
    case 'status':
      if (!account) return undefined
      // A hidden about answers 401, which Baileys reads as an empty one.
      return shows(account, 'about')
        ? node('status', { t: String(unixNow()) }, Buffer.from(account.about))
        : node('status', { code: '401', t: '0' })
    case 'disappearing_mode':
      return node('disappearing_mode', { duration: '0', t: '0' })
    default:
      return undefined
  }
}

/** Who is on the network, under which LID, with which devices. */
function answerUsync(ctx: StanzaContext, iq: BinaryNode, usync: BinaryNode | undefined): void {
  const protocols = childrenOf(child(usync, 'query')).map((protocol) => protocol.tag)
  const users = children(child(usync, 'list'), 'user').map((user) => {
    let jid = user.attrs.jid
    const contact = child(user, 'contact')
    if (!jid && contact) jid = `${bytesOf(contact).toString('utf8').replace(/\D/g, '')}@s.whatsapp.net`
    const resolved = ctx.network.directory.resolve(jid)
    const results = protocols
      .map((protocol) => protocolResult(protocol, resolved?.account, resolved?.addressing === 'lid'))
      .filter((result): result is BinaryNode => result !== undefined)
    return node('user', { jid: jid ?? '' }, results)
  })
  const attrs = usync?.attrs ?? {}
  ctx.connection.send(
    iqResult(iq, [
      node(
        'usync',
        {
          sid: attrs.sid ?? '',
          index: '0',
          last: 'true',
          mode: attrs.mode ?? 'query',
          context: attrs.context ?? '',
        },
        [node('list', {}, users)],
      ),
    ]),
  )
}

export function registerUsyncQueries(router: StanzaRouter): void {
  router.iq('usync', 'get', 'usync', answerUsync)
}
