import { children, iqError, iqResult, node } from './binary-node'
import type { StanzaRouter } from './stanza-router'

const PRIVACY_CATEGORIES: Record<string, string> = {
  last: 'all',
  online: 'all',
  profile: 'all',
  status: 'contacts',
  readreceipts: 'all',
  groupadd: 'all',
  calladd: 'all',
  messages: 'all',
}

/** Keepalive, passive mode, props, privacy, blocklist, empty app state: what a client asks right after login. */
export function registerSessionQueries(router: StanzaRouter): void {
  router
    .iq('w:p', 'get', 'ping', ({ connection }, iq) => connection.send(iqResult(iq)))
    .iq('passive', 'set', 'active', ({ connection }, iq) => connection.send(iqResult(iq)))
    .iq('passive', 'set', 'passive', ({ connection }, iq) => connection.send(iqResult(iq)))
    .iq('abt', 'get', 'props', ({ connection }, iq) =>
      connection.send(
        iqResult(iq, [
          node('props', { protocol: '1', hash: 'sandbox-props-1' }, [
            node('prop', { config_code: '10518', config_value: 'false' }),
          ]),
        ]),
      ),
    )
    .iq('blocklist', 'get', '', ({ connection, network, session }, iq) => {
      const items = (session?.account.blocked ?? []).flatMap((phone) => {
        const account = network.directory.get(phone)
        return account ? [node('item', { jid: account.lidJid, pn_jid: account.pnJid })] : []
      })
      connection.send(iqResult(iq, [node('list', {}, items)]))
    })
    .iq('blocklist', 'set', 'item', ({ connection, network, session }, iq, item) => {
      const target = network.directory.resolve(item?.attrs.jid)
      const action = item?.attrs.action
      if (!session || !target || (action !== 'block' && action !== 'unblock')) {
        return connection.send(iqError(iq, 400, 'bad-request'))
      }
      session.account.setBlocked(target.account.phone, action === 'block')
      connection.send(iqResult(iq))
    })
    .iq('privacy', 'get', 'privacy', ({ connection }, iq) =>
      connection.send(
        iqResult(iq, [
          node(
            'privacy',
            {},
            Object.entries(PRIVACY_CATEGORIES).map(([name, value]) => node('category', { name, value })),
          ),
        ]),
      ),
    )
    .iq('privacy', 'set', 'tokens', ({ connection }, iq) => connection.send(iqResult(iq, [node('tokens')])))
    // "Nothing to sync" for every collection the client asks about.
    .iq('w:sync:app:state', 'set', 'sync', ({ connection }, iq, sync) =>
      connection.send(
        iqResult(iq, [
          node(
            'sync',
            {},
            children(sync, 'collection').map((collection) =>
              node('collection', {
                name: collection.attrs.name ?? '',
                version: collection.attrs.version ?? '0',
              }),
            ),
          ),
        ]),
      ),
    )
    .iq('w:profile:picture', 'get', 'picture', ({ connection, network }, iq) =>
      connection.send(network.pictures.answer(iq, network.directory.resolve(iq.attrs.target)?.account)),
    )
    .iq('md', 'set', 'remove-companion-device', ({ connection, session }, iq, remove) => {
      // The device logs itself out (sock.logout()).
      if (session && remove?.attrs.jid) session.device.markRemoved()
      connection.send(iqResult(iq))
    })
    .iq('w:m', 'set', 'media_conn', ({ connection, network }, iq) =>
      connection.send(
        iqResult(iq, [
          node('media_conn', { auth: network.mediaAuth, ttl: '3600', auth_ttl: '3600', max_buckets: '1' }, [
            node('host', {
              hostname: network.media.hostname,
              maxContentLengthBytes: String(100 * 1024 * 1024),
            }),
          ]),
        ]),
      ),
    )
}
