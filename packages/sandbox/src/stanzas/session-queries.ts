import { setGroupPicture } from '../groups/group-changes'
import { answerGroupChange } from '../groups/group-queries'
import { PRIVACY_DEFAULTS, shows } from '../accounts/privacy'
import { children, iqError, iqResult, node } from './binary-node'
import { sendHistoryBootstrap } from '../messages/history-bootstrap'
import { answerAppStateSync } from './app-state-queries'
import type { IqHandler, StanzaRouter } from './stanza-router'

/** The network's props, in the protocol the client asked for, with the hash a client keeps to ask again. */
const answerProps: IqHandler = ({ connection }, iq, props) =>
  connection.send(
    iqResult(iq, [
      node('props', { protocol: props?.attrs.protocol ?? '1', hash: 'sandbox-props-1' }, [
        node('prop', { config_code: '10518', config_value: 'false' }),
      ]),
    ]),
  )

/** Keepalive, passive mode, props, privacy, blocklist, app state: what a client asks right after login. */
export function registerSessionQueries(router: StanzaRouter): void {
  router
    .iq('w:p', 'get', 'ping', ({ connection }, iq) => connection.send(iqResult(iq)))
    .iq('passive', 'set', 'active', ({ connection }, iq) => connection.send(iqResult(iq)))
    .iq('passive', 'set', 'passive', ({ connection }, iq) => connection.send(iqResult(iq)))
    // The A/B props: Baileys 7 asks `abt` (protocol 1), Baileys 6 and WhatsApp Web's older path `w` (protocol 2).
    .iq('abt', 'get', 'props', answerProps)
    .iq('w', 'get', 'props', async (ctx, iq, props) => {
      answerProps(ctx, iq, props)
      // A client of the Baileys 6 line asks no prekey digest: its props query, asked once logged in, is the
      // moment the phone pushes the initial history sync.
      if (ctx.session && !ctx.session.device.historySent) await sendHistoryBootstrap(ctx.network, ctx.session)
    })
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
    .iq('privacy', 'get', 'privacy', ({ connection, session }, iq) => {
      const settings = { ...PRIVACY_DEFAULTS, ...session?.account.privacy }
      const categories = Object.entries(settings).map(([name, value]) => node('category', { name, value }))
      connection.send(iqResult(iq, [node('privacy', {}, categories)]))
    })
    .iq('privacy', 'set', 'privacy', ({ connection, session }, iq, privacy) => {
      const categories = children(privacy, 'category')
      const known = categories.every(
        ({ attrs }) => attrs.name && attrs.name in PRIVACY_DEFAULTS && attrs.value,
      )
      if (!session || categories.length === 0 || !known)
        return connection.send(iqError(iq, 400, 'bad-request'))
      for (const { attrs } of categories) session.account.setPrivacy(attrs.name ?? '', attrs.value ?? '')
      connection.send(iqResult(iq))
    })
    // The account's own about text, which contacts read through the status query.
    .iq('status', 'set', 'status', ({ connection, session }, iq, status) => {
      const text = status?.content
      if (!session || !(typeof text === 'string' || text instanceof Uint8Array)) {
        return connection.send(iqError(iq, 400, 'bad-request'))
      }
      session.account.setAbout(Buffer.from(text).toString('utf8'))
      connection.send(iqResult(iq))
    })
    .iq('privacy', 'set', 'tokens', ({ connection }, iq) => connection.send(iqResult(iq, [node('tokens')])))
    .iq('w:sync:app:state', 'set', 'sync', answerAppStateSync)
    .iq('w:profile:picture', 'get', 'picture', ({ connection, network, session }, iq) => {
      const { target } = iq.attrs
      // A group's picture shows to its members only, as the group does.
      const group = network.groups.get(target)
      const account = group ? undefined : network.directory.resolve(target)?.account
      // A hidden profile photo is refused to others as not authorized, as WhatsApp answers it.
      if (account && account !== session?.account && !shows(account, 'profile_photo'))
        return connection.send(iqError(iq, 401, 'not-authorized'))
      const owner = group ? session && group.has(session.account) && group.jid : account?.phone
      connection.send(network.pictures.answer(iq, owner || undefined))
    })
    // The account's own picture, or (with a target) a group's.
    .iq('w:profile:picture', 'set', 'picture', ({ connection, network, session }, iq, picture) => {
      const image = picture?.content
      if (!session || !(image instanceof Uint8Array)) return connection.send(iqError(iq, 400, 'bad-request'))
      if (iq.attrs.target) {
        const group = network.groups.get(iq.attrs.target)
        if (!group) return connection.send(iqError(iq, 404, 'item-not-found'))
        return answerGroupChange(connection, iq, () => [
          node('picture', { id: setGroupPicture(network, group, session.account, Buffer.from(image)) }),
        ])
      }
      network.pictures.set(session.account, Buffer.from(image))
      connection.send(
        iqResult(iq, [node('picture', { id: network.pictures.get(session.account.phone)?.id ?? '' })]),
      )
    })
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
