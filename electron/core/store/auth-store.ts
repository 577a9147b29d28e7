import { chmodSync, existsSync, mkdirSync, readdirSync, rmSync } from 'node:fs'
import { join } from 'node:path'
import { open, type Database } from 'lmdb'

/** Encrypts values at rest; the desktop shell passes one backed by the OS keychain (Electron safeStorage). */
export interface AuthCipher {
  encrypt(data: Buffer): Buffer
  decrypt(data: Buffer): Buffer
}

/** One `keys.set` batch: per key type, per id, a value to store or null to delete. */
export type KeyBatch = Record<string, Record<string, unknown>>

const CREDS_KEY = 'creds'
/** First byte of an encrypted value; plain values are JSON text, which never starts with it. */
const ENCRYPTED = 0x01
const SEPARATOR = '\u0000'
/** Uncommitted write transactions an instance may have queued before its writers wait for the disk. */
const MAX_QUEUED = 64

/**
 * JSON that keeps Buffers and Uint8Arrays, in the same shape as Baileys' `BufferJSON`
 * (`{"type":"Buffer","data":"<base64>"}`), so a value written here reads back the way Baileys expects.
 */
export const bufferJson = {
  replacer(this: unknown, _key: string, value: unknown): unknown {
    if (Buffer.isBuffer(value) || value instanceof Uint8Array) {
      return { type: 'Buffer', data: Buffer.from(value).toString('base64') }
    }
    if (isSerializedBuffer(value) && Array.isArray(value.data)) {
      return { type: 'Buffer', data: Buffer.from(value.data as number[]).toString('base64') }
    }
    return value
  },
  reviver(_key: string, value: unknown): unknown {
    if (isSerializedBuffer(value) && typeof value.data === 'string') return Buffer.from(value.data, 'base64')
    if (typeof value === 'object' && value !== null && !Array.isArray(value)) {
      const keys = Object.keys(value)
      if (keys.length > 0 && keys.every((k) => !Number.isNaN(parseInt(k, 10)))) {
        const values = Object.values(value)
        if (values.every((v) => typeof v === 'number')) return Buffer.from(values as number[])
      }
    }
    return value
  },
}

function isSerializedBuffer(value: unknown): value is { type: 'Buffer'; data: unknown } {
  return typeof value === 'object' && value !== null && (value as { type?: unknown }).type === 'Buffer'
}

function keyOf(type: string, id: string): string {
  return `${type}${SEPARATOR}${id}`
}

/**
 * One instance's credentials and Signal keys, in its own LMDB environment (`instances/<id>/auth`).
 * Every `setKeys` batch is one transaction, and writes (keys and creds alike) commit in call order, so a
 * process killed at any moment leaves the state of some earlier call: never half a batch. Values are read
 * from the memory-mapped file on demand, so pre-keys are not all held in the heap.
 *
 * A write resolves once it is queued, not once LMDB committed it (about 0.9 ms later): Baileys awaits every
 * write inside its per-account transaction, so waiting for each commit would serialize every send and every
 * received message behind a disk round trip. Reads see queued writes, so Baileys never reads a session older
 * than one it wrote. A process killed before the commit loses at most its last writes, as if it had died just
 * before them (whole batches, in order); a commit that fails makes every later write fail, never silently.
 */
export class InstanceAuthStore {
  private closed = false
  /** Written values not committed yet (null: deleted), by key. */
  private readonly pending = new Map<string, Buffer | null>()
  private lastCommit: Promise<unknown> = Promise.resolve()
  private queued = 0
  private failure: unknown

  private constructor(
    private readonly db: Database<Buffer, string>,
    private readonly cipher: AuthCipher | undefined,
  ) {}

  /** Opens (creating if needed) the store in `dir`, readable by the user only. */
  static open(dir: string, cipher?: AuthCipher): InstanceAuthStore {
    mkdirSync(dir, { recursive: true, mode: 0o700 })
    const db = open<Buffer, string>({ path: dir, encoding: 'binary', compression: false, maxDbs: 1 })
    for (const file of readdirSync(dir)) chmodSync(join(dir, file), 0o600)
    return new InstanceAuthStore(db, cipher)
  }

  /** The saved credentials, or undefined for an instance that never stored any. */
  readCreds<T>(): T | undefined {
    return this.read(CREDS_KEY) as T | undefined
  }

  /** Saves the whole credentials document, ordered after every write asked before it. */
  async writeCreds(creds: unknown): Promise<void> {
    await this.write([[CREDS_KEY, this.encode(creds)]])
  }

  /** The stored values of `ids` of one key type; ids without a value are left out. */
  getKeys(type: string, ids: readonly string[]): Record<string, unknown> {
    const found: Record<string, unknown> = {}
    for (const id of ids) {
      const value = this.read(keyOf(type, id))
      if (value !== undefined) found[id] = value
    }
    return found
  }

  /** Applies a whole batch in one transaction: all of it or none. Null or undefined deletes. */
  async setKeys(batch: KeyBatch): Promise<void> {
    const entries: Array<[string, Buffer | null]> = []
    for (const [type, values] of Object.entries(batch)) {
      for (const [id, value] of Object.entries(values ?? {})) {
        entries.push([keyOf(type, id), value === null || value === undefined ? null : this.encode(value)])
      }
    }
    if (entries.length === 0) return
    await this.write(entries)
  }

  /**
   * Queues one transaction of writes, visible to reads at once. Past MAX_QUEUED uncommitted transactions the
   * caller waits for the commits, so a writer faster than the disk cannot grow the queue without bound.
   */
  private async write(entries: Array<[string, Buffer | null]>): Promise<void> {
    this.assertOpen()
    if (this.failure !== undefined)
      throw new Error('an earlier write of this auth store failed', { cause: this.failure })
    for (const [key, value] of entries) this.pending.set(key, value)
    this.queued += 1
    this.lastCommit = this.db
      .transaction(() => {
        for (const [key, value] of entries) {
          if (value === null) void this.db.remove(key)
          else void this.db.put(key, value)
        }
      })
      .then(
        () => {
          this.queued -= 1
          for (const [key, value] of entries) if (this.pending.get(key) === value) this.pending.delete(key)
        },
        (error: unknown) => {
          this.queued -= 1
          this.failure = error
        },
      )
    if (this.queued > MAX_QUEUED) await this.lastCommit
  }

  /** Resolves once every write queued so far is committed. */
  async committed(): Promise<void> {
    await this.lastCommit
  }

  /** How many keys of `type` are stored (for tests and diagnostics). */
  countKeys(type: string): number {
    return this.db.getKeysCount({ start: keyOf(type, ''), end: `${type}${SEPARATOR}\uffff` })
  }

  /** Waits for pending writes, then releases the files. */
  async close(): Promise<void> {
    if (this.closed) return
    this.closed = true
    await this.lastCommit
    await this.db.flushed
    await this.db.close()
  }

  /** A socket that outlives its instance's store (it is being torn down) gets an error, never a closed file. */
  private assertOpen(): void {
    if (this.closed) throw new Error('the auth store of this instance is closed')
  }

  private read(key: string): unknown {
    this.assertOpen()
    const stored = this.pending.has(key) ? this.pending.get(key) : this.db.get(key)
    if (stored === undefined || stored === null) return undefined
    let plain: Buffer = Buffer.from(stored)
    if (plain[0] === ENCRYPTED) {
      if (!this.cipher) throw new Error('the credentials are encrypted by the desktop app; open them there')
      plain = this.cipher.decrypt(plain.subarray(1))
    }
    return JSON.parse(plain.toString('utf8'), bufferJson.reviver)
  }

  private encode(value: unknown): Buffer {
    const plain = Buffer.from(JSON.stringify(value, bufferJson.replacer), 'utf8')
    return this.cipher ? Buffer.concat([Buffer.from([ENCRYPTED]), this.cipher.encrypt(plain)]) : plain
  }
}

/** Where each instance's credentials live under the data folder, and how they are opened and wiped. */
export class AuthStore {
  private readonly open = new Map<string, InstanceAuthStore>()

  constructor(
    private readonly dataDir: string,
    private readonly cipher?: AuthCipher,
  ) {}

  /** The folder holding everything of one instance on disk. */
  instanceDir(instanceId: string): string {
    return join(this.dataDir, 'instances', instanceId)
  }

  /** Whether credentials were ever stored for the instance (without opening its store). */
  exists(instanceId: string): boolean {
    return this.open.has(instanceId) || existsSync(this.authDir(instanceId))
  }

  /** The instance's store, opened once and shared by all its sockets. */
  forInstance(instanceId: string): InstanceAuthStore {
    let store = this.open.get(instanceId)
    if (!store) {
      mkdirSync(this.instanceDir(instanceId), { recursive: true, mode: 0o700 })
      store = InstanceAuthStore.open(this.authDir(instanceId), this.cipher)
      this.open.set(instanceId, store)
    }
    return store
  }

  /** Closes the instance's store and deletes its credentials and keys from disk. */
  async wipe(instanceId: string): Promise<void> {
    await this.release(instanceId)
    rmSync(this.authDir(instanceId), { recursive: true, force: true })
  }

  /** Closes the instance's store and deletes its whole folder. */
  async remove(instanceId: string): Promise<void> {
    await this.release(instanceId)
    rmSync(this.instanceDir(instanceId), { recursive: true, force: true })
  }

  /** Closes every open store. */
  async close(): Promise<void> {
    await Promise.all([...this.open.keys()].map((id) => this.release(id)))
  }

  private async release(instanceId: string): Promise<void> {
    const store = this.open.get(instanceId)
    this.open.delete(instanceId)
    await store?.close()
  }

  private authDir(instanceId: string): string {
    return join(this.instanceDir(instanceId), 'auth')
  }
}
