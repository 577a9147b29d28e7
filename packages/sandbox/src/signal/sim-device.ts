import { randomInt } from 'node:crypto'
import { Curve, proto } from '@whiskeysockets/baileys'
import {
  GroupCipher,
  GroupSessionBuilder,
  SenderKeyDistributionMessage,
  SenderKeyName,
} from '@whiskeysockets/baileys/lib/Signal/Group/index.js'
import { ProtocolAddress, SessionBuilder, SessionCipher } from 'libsignal'
import { defineTable, type SandboxState, type StateTable } from '../state/sandbox-state'
import { SignalStore, type SignalKeyPair, type SignalKeys } from './signal-store'
import { addPadding, removePadding } from './padding'

const KEY_TYPE = Buffer.from([5])

/** What a device publishes so others can open a session to it (libsignal's E2ESession shape). */
export interface PreKeyBundle {
  registrationId: number
  identityKey: Buffer
  signedPreKey: { keyId: number; publicKey: Buffer; signature: Buffer }
  preKey?: { keyId: number; publicKey: Buffer }
}

export type EncType = 'pkmsg' | 'msg'

export interface Ciphertext {
  type: EncType
  ciphertext: Buffer
}

function signalKeyPair(): SignalKeyPair {
  const pair = Curve.generateKeyPair()
  return { pubKey: Buffer.concat([KEY_TYPE, pair.public]), privKey: Buffer.from(pair.private) }
}

/** What a simulated device keeps besides its sessions: its identity, signed prekey and prekey counter. */
interface SimDeviceKeys {
  identity: SignalKeyPair
  registrationId: number
  signedPreKey: SignalKeys['signedPreKey']
  nextPreKeyId: number
}

/** Simulated devices' keys, by owner. */
const SIM_DEVICE_KEYS = defineTable<SimDeviceKeys>({ name: 'sim-device-keys' })
/** One-time prekeys simulated devices handed out and not yet saw used, by `<owner>/<key id>`. */
const SIM_PREKEYS = defineTable<SignalKeyPair>({ name: 'sim-prekeys' })

function newKeys(): SimDeviceKeys {
  const identity = signalKeyPair()
  const keyPair = signalKeyPair()
  return {
    identity,
    registrationId: randomInt(1, 16_380),
    signedPreKey: { keyId: 1, keyPair, signature: Buffer.from(Curve.sign(identity.privKey, keyPair.pubKey)) },
    nextPreKeyId: 1,
  }
}

function address(peer: string): ProtocolAddress {
  return new ProtocolAddress(peer, 0)
}

/**
 * A simulated device on the network (a contact's phone, or a linked account's primary phone) with a
 * real Signal identity. Peers are named by stable address strings (see addresses.ts). Crypto calls run
 * one at a time, since libsignal's session records are read, changed and written back.
 */
export class SimDevice implements SignalKeys {
  private readonly keys: SimDeviceKeys
  private readonly keyTable: StateTable<SimDeviceKeys>
  private readonly preKeys: StateTable<SignalKeyPair>
  private readonly store: SignalStore
  private lock: Promise<unknown> = Promise.resolve()

  /** The device `owner` (an account's phone number) as kept in the state, made with fresh keys the first time. */
  constructor(
    state: SandboxState,
    private readonly owner: string,
  ) {
    this.keyTable = state.open(SIM_DEVICE_KEYS)
    this.preKeys = state.open(SIM_PREKEYS)
    const kept = this.keyTable.get(owner)
    this.keys = kept ?? newKeys()
    if (!kept) this.keyTable.put(owner, this.keys)
    this.store = new SignalStore(state, owner, this)
  }

  get identity(): SignalKeyPair {
    return this.keys.identity
  }

  get registrationId(): number {
    return this.keys.registrationId
  }

  get signedPreKey(): SignalKeys['signedPreKey'] {
    return this.keys.signedPreKey
  }

  /** The identity public key without its type byte, as the wire and ADV signatures carry it. */
  get identityKey32(): Buffer {
    return this.identity.pubKey.subarray(1)
  }

  takePreKey(id: number): SignalKeyPair | undefined {
    const key = this.preKeys.get(`${this.owner}/${id}`)
    if (key) this.preKeys.remove(`${this.owner}/${id}`)
    return key
  }

  /** A bundle with a fresh one-time prekey, as the server hands out on a key fetch. */
  publishBundle(): PreKeyBundle {
    const keyId = this.keys.nextPreKeyId++
    this.keyTable.put(this.owner, this.keys)
    const preKey = signalKeyPair()
    this.preKeys.put(`${this.owner}/${keyId}`, preKey)
    return {
      registrationId: this.registrationId,
      identityKey: this.identity.pubKey,
      signedPreKey: {
        keyId: this.signedPreKey.keyId,
        publicKey: this.signedPreKey.keyPair.pubKey,
        signature: this.signedPreKey.signature,
      },
      preKey: { keyId, publicKey: preKey.pubKey },
    }
  }

  hasSession(peer: string): boolean {
    return this.store.hasOpenSession(address(peer).toString())
  }

  forgetSession(peer: string): void {
    this.store.deleteSession(address(peer).toString())
  }

  /** Opens a session to a peer from its bundle (the next encrypt gives a pkmsg). */
  startSession(peer: string, bundle: PreKeyBundle): Promise<void> {
    // libsignal accepts a bundle without a one-time prekey, though its typings do not say so.
    const session = bundle as Parameters<SessionBuilder['initOutgoing']>[0]
    return this.serially(() => new SessionBuilder(this.store, address(peer)).initOutgoing(session))
  }

  encrypt(peer: string, message: proto.IMessage): Promise<Ciphertext> {
    return this.serially(async () => {
      const plain = addPadding(Buffer.from(proto.Message.encode(message).finish()))
      const { type, body } = await new SessionCipher(this.store, address(peer)).encrypt(plain)
      return { type: type === 3 ? 'pkmsg' : 'msg', ciphertext: Buffer.from(body, 'binary') }
    })
  }

  decrypt(peer: string, type: EncType, ciphertext: Uint8Array): Promise<proto.Message> {
    return this.serially(async () => {
      const cipher = new SessionCipher(this.store, address(peer))
      const bytes = Buffer.from(ciphertext)
      const plain =
        type === 'pkmsg'
          ? await cipher.decryptPreKeyWhisperMessage(bytes)
          : await cipher.decryptWhisperMessage(bytes)
      return proto.Message.decode(removePadding(plain))
    })
  }

  /** Stores a sender key that `sender` distributed for `groupId`. */
  acceptSenderKey(groupId: string, sender: string, distribution: Uint8Array): Promise<void> {
    return this.serially(() =>
      new GroupSessionBuilder(this.store).process(
        new SenderKeyName(groupId, address(sender)),
        new SenderKeyDistributionMessage(null, null, null, null, distribution),
      ),
    )
  }

  decryptGroup(groupId: string, sender: string, ciphertext: Uint8Array): Promise<proto.Message> {
    return this.serially(async () => {
      const plain = await new GroupCipher(this.store, new SenderKeyName(groupId, address(sender))).decrypt(
        ciphertext,
      )
      return proto.Message.decode(removePadding(Buffer.from(plain)))
    })
  }

  /** This device's own sender key for a group, as a distribution message to hand to members. */
  senderKeyDistribution(groupId: string, self: string): Promise<Buffer> {
    return this.serially(async () => {
      const message = await new GroupSessionBuilder(this.store).create(
        new SenderKeyName(groupId, address(self)),
      )
      return Buffer.from(message.serialize())
    })
  }

  encryptGroup(groupId: string, self: string, message: proto.IMessage): Promise<Buffer> {
    return this.serially(async () => {
      const plain = addPadding(Buffer.from(proto.Message.encode(message).finish()))
      const cipher = new GroupCipher(this.store, new SenderKeyName(groupId, address(self)))
      return Buffer.from(await cipher.encrypt(plain))
    })
  }

  private serially<T>(work: () => Promise<T>): Promise<T> {
    const run = this.lock.then(work, work)
    this.lock = run.catch(() => undefined)
    return run
  }
}
