import type { SessionRecord, SignalStorage } from 'libsignal'
import type { SenderKeyName } from '@whiskeysockets/baileys/lib/Signal/Group/sender-key-name.js'
import { SenderKeyRecord } from '@whiskeysockets/baileys/lib/Signal/Group/index.js'

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

/** In-memory storage for one simulated device: sessions by peer address and sender keys by group and sender. */
export class MemorySignalStore implements SignalStorage {
  private readonly sessions = new Map<string, SessionRecord>()
  private readonly senderKeys = new Map<string, SenderKeyRecord>()

  constructor(private readonly keys: SignalKeys) {}

  async loadSession(id: string): Promise<SessionRecord | undefined> {
    return this.sessions.get(id)
  }

  async storeSession(id: string, session: SessionRecord): Promise<void> {
    this.sessions.set(id, session)
  }

  deleteSession(id: string): void {
    this.sessions.delete(id)
  }

  hasOpenSession(id: string): boolean {
    return this.sessions.get(id)?.haveOpenSession() ?? false
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
    return this.senderKeys.get(name.toString()) ?? new SenderKeyRecord()
  }

  async storeSenderKey(name: SenderKeyName, record: SenderKeyRecord): Promise<void> {
    this.senderKeys.set(name.toString(), record)
  }
}
