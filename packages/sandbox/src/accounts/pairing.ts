import { createHmac, randomBytes, randomInt } from 'node:crypto'
import { Curve, proto } from '@whiskeysockets/baileys'
import { SandboxError } from '../errors'
import type { SandboxNetwork } from '../network'
import {
  bytesOf,
  child,
  iqError,
  iqResult,
  node,
  SERVER_JID,
  unixNow,
  type BinaryNode,
} from '../stanzas/binary-node'
import type { ClientConnection } from '../transport/client-connection'
import type { Account } from './account'
import type { DeviceRegistration } from './linked-device'
import {
  advSecretOf,
  normalizePairingCode,
  openKeyBundle,
  unwrapWithCode,
  wrapWithCode,
} from './pairing-code'

/** WhatsApp hands a new device six refs; each becomes one QR code as the client rotates them. */
const REFS_PER_CONNECTION = 6
const ACCOUNT_SIGNATURE_PREFIX = Buffer.from([6, 0])
const DEVICE_SIGNATURE_PREFIX = Buffer.from([6, 1])

interface PendingPairing {
  connection: ClientConnection
  registration: DeviceRegistration
  refs: string[]
  /** Set once the device asked to link by a code for a phone number (`companion_hello`). */
  code?: CodeRequest
}

interface CodeRequest {
  phone: string
  ref: Buffer
  /** The companion's ephemeral public key, wrapped under the code. */
  wrappedKey: Buffer
  /** Waiting for the companion's `companion_finish`, while a phone enters the code. */
  finish?: (iq: BinaryNode) => void
}

/** The companion's ephemeral key wrapped under the code: salt, iv and the key. */
const WRAPPED_KEY_BYTES = 80

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
  /** The newest device waiting for a code for each phone number. */
  private readonly byCodePhone = new Map<string, PendingPairing>()

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
    if (pending.code && this.byCodePhone.get(pending.code.phone) === pending)
      this.byCodePhone.delete(pending.code.phone)
  }

  /**
   * A device waiting for a scan asks to link by code instead (`companion_hello`): it names the phone number
   * and sends its ephemeral key wrapped under the code it shows. Answers the pairing ref, as WhatsApp does.
   */
  companionHello(connection: ClientConnection, iq: BinaryNode, request: BinaryNode): void {
    const pending = this.byConnection.get(connection)
    const phone = (request.attrs.jid ?? '').split('@')[0]?.split(':')[0] ?? ''
    const wrappedKey = bytesOf(child(request, 'link_code_pairing_wrapped_companion_ephemeral_pub'))
    if (!pending) return connection.send(iqError(iq, 403, 'forbidden'))
    if (!/^\d{6,15}$/.test(phone) || wrappedKey.length !== WRAPPED_KEY_BYTES)
      return connection.send(iqError(iq, 400, 'bad-request'))
    if (pending.code && this.byCodePhone.get(pending.code.phone) === pending)
      this.byCodePhone.delete(pending.code.phone)
    const ref = Buffer.from(`2@${randomBytes(24).toString('base64')}`)
    pending.code = { phone, ref, wrappedKey }
    this.byCodePhone.set(phone, pending)
    this.network.events.emit('pairing-code', { phone })
    connection.send(
      iqResult(iq, [node('link_code_companion_reg', {}, [node('link_code_pairing_ref', {}, ref)])]),
    )
  }

  /** The device's key bundle (`companion_finish`), for the phone that is entering the code now. */
  companionFinish(connection: ClientConnection, iq: BinaryNode, request: BinaryNode): void {
    const code = this.byConnection.get(connection)?.code
    const ref = bytesOf(child(request, 'link_code_pairing_ref'))
    if (!code?.finish || !code.ref.equals(ref)) return connection.send(iqError(iq, 404, 'item-not-found'))
    code.finish(iq)
  }

  /**
   * The account's phone enters the code a device shows (Linked devices → Link with phone number): the device
   * that asked for a code for this number gets the phone's wrapped key, answers with its key bundle, and is
   * linked as by a scan. A code other than the device's: SandboxError('invalid_parameter'), and the device
   * keeps waiting; no device asking for this number: SandboxError('conflict').
   */
  async enterCode(code: string, account: Account): Promise<{ jid: string; lid: string; device: number }> {
    const typed = normalizePairingCode(code)
    const pending = this.byCodePhone.get(account.phone)
    const request = pending?.code
    if (!pending || !request || !pending.connection.isOpen)
      throw new SandboxError(
        'conflict',
        `No device is waiting for a pairing code for ${account.phone}: ask for a code on the device first.`,
      )
    if (request.finish) throw new SandboxError('conflict', 'A code is being entered for this device already.')
    const companionEphemeral = await unwrapWithCode(request.wrappedKey, typed)
    const ephemeral = Curve.generateKeyPair()
    const finished = new Promise<BinaryNode>((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error('the device did not send its key bundle')),
        this.network.timings.pairingReplyTimeoutMs,
      )
      request.finish = (iq) => {
        clearTimeout(timer)
        resolve(iq)
      }
    })
    let finish: BinaryNode
    try {
      pending.connection.send(
        node(
          'notification',
          {
            from: SERVER_JID,
            type: 'link_code_companion_reg',
            id: randomBytes(6).toString('hex'),
            t: String(unixNow()),
          },
          [
            node('link_code_companion_reg', {}, [
              node('link_code_pairing_ref', {}, request.ref),
              node('primary_identity_pub', {}, account.phoneDevice.identityKey32),
              node(
                'link_code_pairing_wrapped_primary_ephemeral_pub',
                {},
                await wrapWithCode(ephemeral.public, typed),
              ),
            ]),
          ],
        ),
      )
      finish = await finished
    } catch (error) {
      throw new SandboxError('upstream_failed', 'The device did not complete the link.', { cause: error })
    } finally {
      request.finish = undefined
    }
    const shared = Curve.sharedKey(ephemeral.private, companionEphemeral)
    const bundle = openKeyBundle(
      bytesOf(child(child(finish, 'link_code_companion_reg'), 'link_code_pairing_wrapped_key_bundle')),
      shared,
    )
    if (
      !bundle ||
      !bundle.companionIdentity.equals(pending.registration.identityKey) ||
      !bundle.primaryIdentity.equals(account.phoneDevice.identityKey32)
    ) {
      pending.connection.send(iqError(finish, 400, 'bad-request'))
      throw new SandboxError('invalid_parameter', 'That is not the code the device shows.')
    }
    pending.connection.send(iqResult(finish))
    const advSecret = advSecretOf(shared, account.phoneDevice.identity.privKey, bundle)
    return this.complete(pending, account, advSecret)
  }

  /** The account's phone scans a QR code: the QR carries the ADV secret the device will check. */
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
    return this.complete(pending, account, scanned.advSecret)
  }

  /**
   * The phone vouches for the device (ADV signature, under the secret the two share), the device signs back,
   * and the server makes it restart (515) and log in as a linked device.
   */
  private async complete(
    pending: PendingPairing,
    account: Account,
    advSecret: Buffer,
  ): Promise<{ jid: string; lid: string; device: number }> {
    const { connection, registration } = pending
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
    const hmac = createHmac('sha256', advSecret).update(signed).digest()
    const container = proto.ADVSignedDeviceIdentityHMAC.encode({ details: signed, hmac }).finish()
    const jid = account.jid('pn', device.id)
    const lid = account.jid('lid', device.id)
    try {
      const reply = await connection.query(
        node('iq', { from: SERVER_JID, type: 'set', xmlns: 'md' }, [
          node('pair-success', {}, [
            node('device-identity', {}, container),
            // A Business account's phone runs WhatsApp Business (smba) and names the business, as the network
            // tells a device it links (Baileys keeps them as creds.platform and creds.me.name).
            node('platform', { name: account.business ? 'smba' : 'android' }),
            ...(account.business ? [node('biz', { name: account.name })] : []),
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
