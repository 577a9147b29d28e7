import type { ClientConnection } from '../transport/client-connection'
import type { BinaryNode } from '../stanzas/binary-node'
import type { PreKeyBundle } from '../signal/sim-device'

const KEY_TYPE = Buffer.from([5])
/** Queued stanzas kept for a device that is offline; older ones are dropped past this. */
const OFFLINE_QUEUE_LIMIT = 1000

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
  private readonly offline: BinaryNode[] = []

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

  /** Sends now if connected, otherwise keeps the stanza for the next login. */
  deliver(stanza: BinaryNode): void {
    if (this.removed) return
    if (this.connection?.isOpen) {
      this.connection.send(stanza)
      return
    }
    this.offline.push(stanza)
    if (this.offline.length > OFFLINE_QUEUE_LIMIT) this.offline.shift()
  }

  takeOfflineQueue(): BinaryNode[] {
    return this.offline.splice(0, this.offline.length)
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
