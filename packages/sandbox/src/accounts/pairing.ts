import { createHmac, randomBytes, randomInt } from 'node:crypto'
import { Curve, proto } from '@whiskeysockets/baileys'
import { SandboxError } from '../errors'
import type { SandboxNetwork } from '../network'
import { bytesOf, child, node, SERVER_JID, unixNow } from '../stanzas/binary-node'
import type { ClientConnection } from '../transport/client-connection'
import type { Account } from './account'
import type { DeviceRegistration } from './linked-device'

/** WhatsApp hands a new device six refs; each becomes one QR code as the client rotates them. */
const REFS_PER_CONNECTION = 6
const ACCOUNT_SIGNATURE_PREFIX = Buffer.from([6, 0])
const DEVICE_SIGNATURE_PREFIX = Buffer.from([6, 1])

interface PendingPairing {
  connection: ClientConnection
  registration: DeviceRegistration
  refs: string[]
}

interface ScannedQr {
  ref: string
  noiseKey: Buffer
  identityKey: Buffer
  advSecret: Buffer
}

/** Reads the text a WhatsApp QR code encodes: `<url>#ref,noiseKey,identityKey,advSecret,platform`. */
function parseQr(qr: string): ScannedQr | undefined {
  const fields = qr.slice(qr.indexOf('#') + 1).split(',')
  if (fields.length < 4) return undefined
  const [ref, noise, identity, adv] = fields as [string, string, string, string]
  return {
    ref,
    noiseKey: Buffer.from(noise, 'base64'),
    identityKey: Buffer.from(identity, 'base64'),
    advSecret: Buffer.from(adv, 'base64'),
  }
}

/** New devices waiting for a scan, by the refs their QR codes carry. */
export class PairingRegistry {
  private readonly byRef = new Map<string, PendingPairing>()
  private readonly byConnection = new Map<ClientConnection, PendingPairing>()

  constructor(private readonly network: SandboxNetwork) {}

  /** A new device connected with its registration: hand it the refs to show as QR codes. */
  start(connection: ClientConnection, pairingData: proto.ClientPayload.IDevicePairingRegistrationData): void {
    const identityKey = Buffer.from(pairingData.eIdent ?? [])
    const registrationId = Buffer.from(pairingData.eRegid ?? [])
    const signedPreKey = {
      keyId: Buffer.from(pairingData.eSkeyId ?? []),
      publicKey: Buffer.from(pairingData.eSkeyVal ?? []),
      signature: Buffer.from(pairingData.eSkeySig ?? []),
    }
    const complete =
      identityKey.length === 32 &&
      registrationId.length === 4 &&
      signedPreKey.keyId.length === 3 &&
      signedPreKey.publicKey.length === 32
    if (!connection.clientStatic || !complete) return connection.terminate()
    const registration: DeviceRegistration = {
      noiseKey: connection.clientStatic,
      identityKey,
      registrationId: registrationId.readUInt32BE(0),
      signedPreKey: { ...signedPreKey, keyId: signedPreKey.keyId.readUIntBE(0, 3) },
    }
    const refs = Array.from({ length: REFS_PER_CONNECTION }, () => `2@${randomBytes(24).toString('base64')}`)
    const pending = { connection, registration, refs }
    for (const ref of refs) this.byRef.set(ref, pending)
    this.byConnection.set(connection, pending)
    connection.send(
      node('iq', { from: SERVER_JID, type: 'set', xmlns: 'md', id: randomBytes(6).toString('hex') }, [
        node(
          'pair-device',
          {},
          refs.map((ref) => node('ref', {}, Buffer.from(ref))),
        ),
      ]),
    )
  }

  /** The connection went away: its QR codes expire. */
  forget(connection: ClientConnection): void {
    const pending = this.byConnection.get(connection)
    if (!pending) return
    this.byConnection.delete(connection)
    for (const ref of pending.refs) this.byRef.delete(ref)
  }

  /**
   * The account's phone scans a QR code: it vouches for the device (ADV signature), the device signs
   * back, and the server makes it restart (515) and log in as a linked device.
   */
  async scan(qr: string, account: Account): Promise<{ jid: string; lid: string; device: number }> {
    const scanned = parseQr(qr)
    const pending = scanned && this.byRef.get(scanned.ref)
    const { registration, connection } = pending ?? {}
    if (
      !scanned ||
      !pending ||
      !connection?.isOpen ||
      !registration?.noiseKey.equals(scanned.noiseKey) ||
      !registration.identityKey.equals(scanned.identityKey)
    ) {
      throw new SandboxError('qr_not_found')
    }
    this.forget(connection)
    const device = account.addLinkedDevice(registration)
    const details = proto.ADVDeviceIdentity.encode({
      rawId: randomInt(1, 2 ** 31),
      timestamp: unixNow(),
      keyIndex: device.keyIndex,
    }).finish()
    const accountSignatureKey = account.phoneDevice.identityKey32
    const accountSignature = Curve.sign(
      account.phoneDevice.identity.privKey,
      Buffer.concat([ACCOUNT_SIGNATURE_PREFIX, details, registration.identityKey]),
    )
    const signed = proto.ADVSignedDeviceIdentity.encode({
      details,
      accountSignatureKey,
      accountSignature,
    }).finish()
    const hmac = createHmac('sha256', scanned.advSecret).update(signed).digest()
    const container = proto.ADVSignedDeviceIdentityHMAC.encode({ details: signed, hmac }).finish()
    const jid = account.jid('pn', device.id)
    const lid = account.jid('lid', device.id)
    try {
      const reply = await connection.query(
        node('iq', { from: SERVER_JID, type: 'set', xmlns: 'md' }, [
          node('pair-success', {}, [
            node('device-identity', {}, container),
            node('platform', { name: 'android' }),
            node('device', { jid, lid }),
          ]),
        ]),
        this.network.timings.pairingReplyTimeoutMs,
      )
      const signedBack = proto.ADVSignedDeviceIdentity.decode(
        bytesOf(child(child(reply, 'pair-device-sign'), 'device-identity')),
      )
      const deviceSignatureValid = Curve.verify(
        registration.identityKey,
        Buffer.concat([
          DEVICE_SIGNATURE_PREFIX,
          signedBack.details ?? new Uint8Array(),
          registration.identityKey,
          accountSignatureKey,
        ]),
        signedBack.deviceSignature ?? new Uint8Array(),
      )
      if (!deviceSignatureValid) throw new Error('the device signature does not verify')
    } catch (error) {
      account.forgetLinkedDevice(device.id)
      connection.terminate()
      throw new SandboxError('upstream_failed', 'The device did not complete the link.', { cause: error })
    }
    connection.send(node('stream:error', { code: '515' }))
    connection.close()
    this.network.events.emit('link', { phone: account.phone, device: device.id, jid })
    return { jid, lid, device: device.id }
  }
}
