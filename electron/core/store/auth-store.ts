export type { AuthCipher } from './auth-codec'
export { bufferJson } from './auth-codec'

/** One `keys.set` batch: per key type, per id, a value to store or null to delete. */
export type KeyBatch = Record<string, Record<string, unknown>>

export interface KeyReadOptions {
  /**
   * The caller only reads the values and never changes them: they may be served from, and kept in, the
   * instance's bounded cache of decoded values, shared with other such reads.
   */
  readOnly?: boolean
}

/**
 * One instance's credentials and Signal keys. Credentials are read synchronously (the session decides from
 * them whether it is linked): a store that reads over the network loads them in `AuthStore.load`. Keys are
 * read and written asynchronously; each `setKeys` batch is all or nothing, writes apply in call order, and
 * reads see every write made before them.
 */
export interface InstanceAuthStore {
  /** The saved credentials, or undefined for an instance that never stored any. */
  readCreds<T>(): T | undefined
  /** Saves the whole credentials document, ordered after every write asked before it. */
  writeCreds(creds: unknown): Promise<void>
  /** The stored values of `ids` of one key type; ids without a value are left out. */
  getKeys(type: string, ids: readonly string[], options?: KeyReadOptions): Promise<Record<string, unknown>>
  /** Applies a whole batch in one transaction: all of it or none. Null or undefined deletes. */
  setKeys(batch: KeyBatch): Promise<void>
  /**
   * Holds back the commits of the writes made from now on (reads see them at once, as always) until the
   * returned function is called; they then commit in call order. An incoming message's decryption holds its
   * key writes until the message's event is durable, so a crash in between leaves a session that can still
   * decrypt the copy the network sends again. Released with `kept` false (the message could not be kept),
   * the held writes are dropped and the store fails its later writes, so the next session reads afresh from
   * what is durable. Closing the store releases every hold.
   */
  holdWrites(): (kept?: boolean) => void
  /** Whether a hold is on now (an incoming message's key writes wait for the message to be kept). */
  readonly holding: boolean
  /**
   * Resolves once no hold is on and every commit asked for so far has settled (made, failed or dropped): a
   * new socket starts on what its predecessor's last decryptions left, never beside them.
   */
  settled(): Promise<void>
  /**
   * Whether a new socket may go on with this store: not once it is closed, a write failed or held writes were
   * dropped (what it holds in memory is then ahead of what is durable; `AuthStore.forInstance` reads afresh).
   */
  readonly usable: boolean
  /** Resolves once every write made so far is durable. */
  committed(): Promise<void>
  /**
   * Resolves once every write made so far is durable, and rejects if one failed or was refused (a node that
   * lost the instance). Writes held back (see holdWrites) are not waited for: their holder may be the caller.
   */
  durable(): Promise<void>
  /** How many keys of `type` are durable (for tests and diagnostics). */
  countKeys(type: string): Promise<number>
}

/** Every instance's credentials and keys. */
export interface AuthStore {
  /** Makes the instances' stored credentials readable synchronously; call before their sessions start. */
  load(instanceIds: readonly string[]): Promise<void>
  /** Forgets what is kept in memory of the instance and reads it again (a cluster peer held it meanwhile). */
  reload(instanceId: string): Promise<void>
  /** The instance's store, opened once and shared by all its sockets. */
  forInstance(instanceId: string): InstanceAuthStore
  /** Whether credentials are stored for the instance. */
  exists(instanceId: string): Promise<boolean>
  /** How many values (credentials and keys) of the instance are durable (for tests and diagnostics). */
  countEntries(instanceId: string): Promise<number>
  /** Deletes the instance's credentials and keys, in one transaction (it is linked again from scratch). */
  wipe(instanceId: string): Promise<void>
  /** Deletes the instance's credentials, keys and files (it is destroyed). */
  remove(instanceId: string): Promise<void>
  close(): Promise<void>
}
