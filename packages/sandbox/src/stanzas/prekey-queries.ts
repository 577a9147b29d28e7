import type { SignedPreKey } from '../accounts/linked-device'
import type { PreKeyBundle } from '../signal/sim-device'
import { sendHistoryBootstrap } from '../messages/history-bootstrap'
import {
  bytesOf,
  child,
  children,
  iqError,
  iqResult,
  node,
  readUint,
  uintBytes,
  type BinaryNode,
} from './binary-node'
import type { StanzaContext, StanzaRouter } from './stanza-router'

/** The `<user>` element of a key-fetch answer; keys go on the wire without their 0x05 type byte. */
export function bundleNode(jid: string, bundle: PreKeyBundle): BinaryNode {
  const content: BinaryNode[] = [
    node('registration', {}, uintBytes(bundle.registrationId, 4)),
    node('type', {}, Buffer.from([5])),
    node('identity', {}, bundle.identityKey.subarray(1)),
    node('skey', {}, [
      node('id', {}, uintBytes(bundle.signedPreKey.keyId, 3)),
      node('value', {}, bundle.signedPreKey.publicKey.subarray(1)),
      node('signature', {}, bundle.signedPreKey.signature),
    ]),
  ]
  if (bundle.preKey) {
    content.push(
      node('key', {}, [
        node('id', {}, uintBytes(bundle.preKey.keyId, 3)),
        node('value', {}, bundle.preKey.publicKey.subarray(1)),
      ]),
    )
  }
  return node('user', { jid }, content)
}

export function parseSignedPreKey(skey: BinaryNode | undefined): SignedPreKey | undefined {
  const value = bytesOf(child(skey, 'value'))
  if (!skey || value.length !== 32) return undefined
  return {
    keyId: readUint(child(skey, 'id')),
    publicKey: value,
    signature: bytesOf(child(skey, 'signature')),
  }
}

function storeUpload(ctx: StanzaContext, iq: BinaryNode): void {
  const device = ctx.session?.device
  if (!device) return
  const preKeys = children(child(iq, 'list'), 'key').map((key): [number, Buffer] => [
    readUint(child(key, 'id')),
    bytesOf(child(key, 'value')),
  ])
  device.storeKeys(preKeys, parseSignedPreKey(child(iq, 'skey')))
}

/** A key fetch: bundles for simulated phones and for linked devices, from the keys they uploaded. */
function answerKeyFetch(ctx: StanzaContext, iq: BinaryNode, keyNode: BinaryNode | undefined): void {
  const users = children(keyNode, 'user').map((user) => {
    const jid = user.attrs.jid ?? ''
    const resolved = ctx.network.directory.resolve(jid)
    if (resolved?.device === 0) return bundleNode(jid, resolved.account.phoneDevice.publishBundle())
    const linked = resolved?.account.linkedDevices.get(resolved.device)
    if (linked && !linked.removed) {
      const bundle = linked.takeBundle()
      if (linked.preKeyCount < 5) notifyPreKeysLow(linked.preKeyCount, linked)
      return bundleNode(jid, bundle)
    }
    return node('user', { jid }, [node('error', { code: '404', text: 'item-not-found' })])
  })
  ctx.connection.send(iqResult(iq, [node('list', {}, users)]))
}

function notifyPreKeysLow(count: number, device: { deliver(stanza: BinaryNode): void }): void {
  device.deliver(
    node('notification', { from: 's.whatsapp.net', type: 'encrypt', id: `prekeys-${Date.now()}` }, [
      node('count', { value: String(count) }),
    ]),
  )
}

/** Prekey count, upload, rotation, digest and key fetch. */
export function registerPreKeyQueries(router: StanzaRouter): void {
  router
    .iq('encrypt', 'get', 'count', ({ connection, session }, iq) =>
      connection.send(iqResult(iq, [node('count', { value: String(session?.device.preKeyCount ?? 0) })])),
    )
    .iq('encrypt', 'set', 'registration', (ctx, iq) => {
      if (!ctx.session) return ctx.connection.send(iqError(iq, 401, 'not-authorized'))
      storeUpload(ctx, iq)
      ctx.connection.send(iqResult(iq))
    })
    .iq('encrypt', 'set', 'rotate', (ctx, iq, rotate) => {
      const signed = parseSignedPreKey(child(rotate, 'skey'))
      if (ctx.session && signed) ctx.session.device.storeKeys([], signed)
      ctx.connection.send(iqResult(iq))
    })
    .iq('encrypt', 'get', 'digest', async (ctx, iq) => {
      ctx.connection.send(iqResult(iq, [node('digest')]))
      // The digest is the client's last login step, after its prekeys are up: the phone can now
      // open a session to it and push the initial history sync.
      if (ctx.session && !ctx.session.device.historySent) await sendHistoryBootstrap(ctx.network, ctx.session)
    })
    .iq('encrypt', 'get', 'key', answerKeyFetch)
}
