import type { ClientConnection } from '../transport/client-connection'
import type { BinaryNode } from '../stanzas/binary-node'
import type { PreKeyBundle } from '../signal/sim-device'
import { defineTable, type SandboxState, type StateTable } from '../state/sandbox-state'
import { StoredList } from '../state/stored-list'
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

/** What the network keeps of a linked device. */
export interface LinkedDeviceRecord {
  id: number
  keyIndex: number
  registration: DeviceRegistration
  signedPreKey: SignedPreKey
  /** One-time prekeys the device uploaded and nobody took yet, in upload order. */
  preKeys: Array<[number, Buffer]>
  removed: boolean
  historySent: boolean
}

/** Linked devices, by `<phone>/<device id>`. */
export const LINKED_DEVICES = defineTable<LinkedDeviceRecord>({ name: 'linked-devices' })

/** A companion device (a Linkdesk instance) linked to an account, with the keys it registered and uploaded. */
export class LinkedDevice {
  readonly id: number
  readonly keyIndex: number
  readonly registration: DeviceRegistration
  connection: ClientConnection | undefined
  private readonly preKeyMap: Map<number, Buffer>
  private signed: SignedPreKey
  private wasRemoved: boolean
  private sentHistory: boolean
  private readonly table: StateTable<LinkedDeviceRecord>
  /** What the device is still owed: messages until it receipts them, anything else while it is away. */
  readonly mailbox: DeviceMailbox

  constructor(
    state: SandboxState,
    private readonly phone: string,
    record: Pick<LinkedDeviceRecord, 'id' | 'keyIndex' | 'registration'> & Partial<LinkedDeviceRecord>,
  ) {
    this.id = record.id
    this.keyIndex = record.keyIndex
    this.registration = record.registration
    this.signed = record.signedPreKey ?? record.registration.signedPreKey
    this.preKeyMap = new Map(record.preKeys)
    this.wasRemoved = record.removed ?? false
    this.sentHistory = record.historySent ?? false
    this.table = state.open(LINKED_DEVICES)
    this.mailbox = new DeviceMailbox(new StoredList(state, `mailbox/${phone}/${this.id}`))
  }

  get online(): boolean {
    return this.connection?.isOpen ?? false
  }

  get removed(): boolean {
    return this.wasRemoved
  }

  get historySent(): boolean {
    return this.sentHistory
  }

  get signedPreKey(): SignedPreKey {
    return this.signed
  }

  get preKeyCount(): number {
    return this.preKeyMap.size
  }

  /** The phone removed the device (or the device logged itself out): it can never log in again. */
  markRemoved(): void {
    this.wasRemoved = true
    this.save()
  }

  markHistorySent(): void {
    this.sentHistory = true
    this.save()
  }

  /** Keys the device uploaded: one-time prekeys and, when given, a new signed prekey. */
  storeKeys(preKeys: Array<[number, Buffer]>, signedPreKey?: SignedPreKey): void {
    for (const [keyId, publicKey] of preKeys) this.preKeyMap.set(keyId, publicKey)
    if (signedPreKey) this.signed = signedPreKey
    this.save()
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
    const next = this.preKeyMap.entries().next()
    if (!next.done) {
      const [keyId, publicKey] = next.value
      this.preKeyMap.delete(keyId)
      this.save()
      bundle.preKey = { keyId, publicKey: Buffer.concat([KEY_TYPE, publicKey]) }
    }
    return bundle
  }

  /** Writes the device's record; every change to what the network keeps of it goes through here. */
  save(): void {
    this.table.put(`${this.phone}/${this.id}`, {
      id: this.id,
      keyIndex: this.keyIndex,
      registration: this.registration,
      signedPreKey: this.signed,
      preKeys: [...this.preKeyMap],
      removed: this.wasRemoved,
      historySent: this.sentHistory,
    })
  }
}
