import { SessionRecord, type SignalStorage } from 'libsignal'
import type { SenderKeyName } from '@whiskeysockets/baileys/lib/Signal/Group/sender-key-name.js'
import { SenderKeyRecord } from '@whiskeysockets/baileys/lib/Signal/Group/index.js'
import { defineTable, type SandboxState, type StateTable } from '../state/sandbox-state'

/** A libsignal key pair: the public half carries the 0x05 type byte (33 bytes). */
export interface SignalKeyPair {
  pubKey: Buffer
  privKey: Buffer
}

export interface SignalKeys {
  identity: SignalKeyPair
  registrationId: number
  signedPreKey: { keyId: number; keyPair: SignalKeyPair; signature: Buffer }
  takePreKey(id: number): SignalKeyPair | undefined
}

/** Simulated devices' sessions, by `<owner>/<peer address>`. */
const SESSIONS = defineTable<SessionRecord>({
  name: 'signal-sessions',
  // libsignal's typings call the serialized form bytes; it is a plain object, which the state keeps as is.
  encode: (record) => record.serialize(),
  decode: (stored) => SessionRecord.deserialize(stored as Uint8Array),
})

/** Sender keys simulated devices hold, by `<owner>/<group>::<sender>::<device>`. */
const SENDER_KEYS = defineTable<SenderKeyRecord>({
  name: 'sender-keys',
  encode: (record) => record.serialize(),
  decode: (stored) => new SenderKeyRecord(stored as ConstructorParameters<typeof SenderKeyRecord>[0]),
})

/**
 * Storage for one simulated device, `owner`: sessions by peer address and sender keys by group and sender,
 * kept in the sandbox's state.
 */
export class SignalStore implements SignalStorage {
  private readonly sessions: StateTable<SessionRecord>
  private readonly senderKeys: StateTable<SenderKeyRecord>

  constructor(
    state: SandboxState,
    private readonly owner: string,
    private readonly keys: SignalKeys,
  ) {
    this.sessions = state.open(SESSIONS)
    this.senderKeys = state.open(SENDER_KEYS)
  }

  async loadSession(id: string): Promise<SessionRecord | undefined> {
    return this.sessions.get(this.key(id))
  }

  async storeSession(id: string, session: SessionRecord): Promise<void> {
    this.sessions.put(this.key(id), session)
  }

  deleteSession(id: string): void {
    this.sessions.remove(this.key(id))
  }

  hasOpenSession(id: string): boolean {
    return this.sessions.get(this.key(id))?.haveOpenSession() ?? false
  }

  // Simulated users trust on first use, as WhatsApp Web does.
  isTrustedIdentity(): boolean {
    return true
  }

  async loadPreKey(id: number | string): Promise<SignalKeyPair | undefined> {
    return this.keys.takePreKey(Number(id))
  }

  removePreKey(): void {
    // takePreKey already consumed it.
  }

  loadSignedPreKey(): SignalKeyPair {
    return this.keys.signedPreKey.keyPair
  }

  getOurRegistrationId(): number {
    return this.keys.registrationId
  }

  getOurIdentity(): SignalKeyPair {
    return this.keys.identity
  }

  async loadSenderKey(name: SenderKeyName): Promise<SenderKeyRecord> {
    return this.senderKeys.get(this.key(name.toString())) ?? new SenderKeyRecord()
  }

  async storeSenderKey(name: SenderKeyName, record: SenderKeyRecord): Promise<void> {
    this.senderKeys.put(this.key(name.toString()), record)
  }

  private key(id: string): string {
    return `${this.owner}/${id}`
  }
}
