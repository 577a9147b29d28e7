import type { ClientConnection } from '../transport/client-connection'
import type { BinaryNode } from '../stanzas/binary-node'
import type { PreKeyBundle } from '../signal/sim-device'
import { DeviceMailbox } from './device-mailbox'

const KEY_TYPE = Buffer.from([5])

export interface SignedPreKey {
  keyId: number
  publicKey: Buffer
  signature: Buffer
}

export interface DeviceRegistration {
  noiseKey: Buffer
  identityKey: Buffer
  registrationId: number
  signedPreKey: SignedPreKey
}

/** A companion device (a Linkdesk instance) linked to an account, with the keys it registered and uploaded. */
export class LinkedDevice {
  readonly preKeys = new Map<number, Buffer>()
  signedPreKey: SignedPreKey
  connection: ClientConnection | undefined
  removed = false
  historySent = false
  /** What the device is still owed: messages until it receipts them, anything else while it is away. */
  readonly mailbox = new DeviceMailbox()

  constructor(
    readonly id: number,
    readonly keyIndex: number,
    readonly registration: DeviceRegistration,
  ) {
    this.signedPreKey = registration.signedPreKey
  }

  get online(): boolean {
    return this.connection?.isOpen ?? false
  }

  /** Sends now if connected; keeps a message until its receipt, anything else if not sent. */
  deliver(stanza: BinaryNode): void {
    if (this.removed) return
    const written = this.connection?.isOpen ?? false
    if (written) this.connection?.send(stanza)
    this.mailbox.hold(stanza, written)
  }

  /** A prekey bundle from the uploaded keys; each one-time prekey is handed out once. */
  takeBundle(): PreKeyBundle {
    const bundle: PreKeyBundle = {
      registrationId: this.registration.registrationId,
      identityKey: Buffer.concat([KEY_TYPE, this.registration.identityKey]),
      signedPreKey: {
        keyId: this.signedPreKey.keyId,
        publicKey: Buffer.concat([KEY_TYPE, this.signedPreKey.publicKey]),
        signature: this.signedPreKey.signature,
      },
    }
    const next = this.preKeys.entries().next()
    if (!next.done) {
      const [keyId, publicKey] = next.value
      this.preKeys.delete(keyId)
      bundle.preKey = { keyId, publicKey: Buffer.concat([KEY_TYPE, publicKey]) }
    }
    return bundle
  }
}
