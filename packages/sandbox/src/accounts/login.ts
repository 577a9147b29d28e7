import type { proto } from '@whiskeysockets/baileys'
import type { Logger } from '../logger'
import type { SandboxNetwork } from '../network'
import { node, SERVER_JID, unixNow } from '../stanzas/binary-node'
import type { ClientConnection } from '../transport/client-connection'
import { closeReplaced } from '../faults/faults'

/** Ends a handshake with `<failure reason>`, as the server refuses a login. */
export function refuse(connection: ClientConnection, reason: number): void {
  connection.send(node('failure', { reason: String(reason), location: 'sandbox' }))
  connection.close()
}

/**
 * A linked device logs in with its phone number, device id and Noise key (its only credential).
 * Unknown, removed or mismatching devices get `<failure reason="401">`. What the device is still owed
 * (stanzas queued while it was away, messages it never receipted) follows the `<success>`, marked offline,
 * then the offline marker that releases Baileys' event buffer.
 */
export function logIn(
  network: SandboxNetwork,
  connection: ClientConnection,
  payload: proto.ClientPayload,
  log: Logger,
): void {
  const phone = String(payload.username ?? '')
  const deviceId = payload.device ?? 0
  const account = network.directory.get(phone)
  const device = account?.linkedDevices.get(deviceId)
  if (
    !account ||
    !device ||
    device.removed ||
    !connection.clientStatic?.equals(device.registration.noiseKey)
  ) {
    log.debug({ phone, device: deviceId }, 'login refused: not a linked device')
    return refuse(connection, 401)
  }
  const outage = network.outages.get(phone)
  if (outage !== undefined) {
    if (Date.now() < outage) {
      log.debug({ phone, device: deviceId }, 'login cut: the network is down for this account')
      return connection.terminate()
    }
    network.outages.delete(phone)
  }
  const failure = network.loginFailures.get(phone)
  if (failure !== undefined) {
    network.loginFailures.delete(phone)
    log.debug({ phone, device: deviceId, reason: failure }, 'login refused by an injected failure')
    return refuse(connection, failure)
  }
  const previous = device.connection
  if (previous && previous !== connection && previous.isOpen) closeReplaced(previous)
  device.connection = connection
  network.sessions.set(connection, { account, device, loggedInAt: Date.now() })
  connection.send(
    node('success', {
      t: String(unixNow()),
      props: '1',
      abprops: '1',
      location: 'sandbox',
      creation: String(unixNow()),
      lid: account.jid('lid', device.id),
      display_name: account.name,
    }),
  )
  const queued = device.mailbox.takeForLogin()
  for (const stanza of queued) connection.send({ ...stanza, attrs: { ...stanza.attrs, offline: '1' } })
  connection.send(node('ib', { from: SERVER_JID }, [node('offline', { count: String(queued.length) })]))
  log.debug({ phone, device: device.id, queued: queued.length }, 'linked device logged in')
  const redelivered = queued
    .filter((stanza) => stanza.tag === 'message')
    .map((stanza) => stanza.attrs.id ?? '')
  network.events.emit('login', { phone, device: device.id, redelivered })
}
