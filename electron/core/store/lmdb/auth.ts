import { chmodSync, existsSync, mkdirSync, readdirSync, rmSync } from 'node:fs'
import { join } from 'node:path'
import { open, type Database, type RootDatabase } from 'lmdb'
import { LRUCache } from 'lru-cache'
import { handledBatchStarts } from './database'
import { type AuthCipher, copyAsDecoded, decodeValue, encodeValue, NOT_COPIED } from '../auth-codec'
import type { AuthStore, InstanceAuthStore, KeyBatch, KeyReadOptions } from '../auth-store'
import { CommitHold } from '../commit-hold'
import { readLegacyAuth } from './legacy-auth'

const CREDS_KEY = 'creds'
/**
 * Separates the instance id, the key type and the key id. Not NUL: lmdb's key encoding escapes characters
 * below 5 only in keys shorter than 64 characters, so a long NUL-separated key (a sender key, the sender-key
 * memory of a group) sorted outside its instance's range, and a wipe left it behind.
 */
const SEPARATOR = '\u001f'
/** Sorts right after SEPARATOR: the exclusive end of a range of keys starting with `<prefix>\u001f`. */
const AFTER_SEPARATOR = '\u0020'
/** What separated a key's type and id in an earlier version's per-instance environment. */
const LEGACY_SEPARATOR = '\u0000'
/** Uncommitted write transactions an instance may have queued before its writers wait for the disk. */
const MAX_QUEUED = 64
/** Decoded values an instance keeps for read-only reads, and their summed stored size. */
const CACHE_ENTRIES = 256
const CACHE_BYTES = 256 * 1024

type Entry = { key: string; stored: Buffer | null; value: unknown }
/** What a stored value decodes to: JSON, never null (a null write deletes). */
type Decoded = NonNullable<unknown>

/**
 * One instance's credentials and Signal keys, under its own key prefix in the shared auth environment.
 * Every `setKeys` batch is one transaction, and writes (keys and creds alike) commit in call order, so a
 * process killed at any moment leaves the state of some earlier call: never half a batch. Values are read
 * from the memory-mapped file on demand, so pre-keys are not all held in the heap; read-only reads keep
 * their decoded values in a small cache (bounded in entries and bytes) that every write of those keys updates.
 *
 * A write resolves once it is queued, not once LMDB committed it (about 0.9 ms later): Baileys awaits every
 * write inside its per-account transaction, so waiting for each commit would serialize every send and every
 * received message behind a disk round trip. Reads see queued writes, so Baileys never reads a session older
 * than one it wrote. A process killed before the commit loses at most its last writes, as if it had died just
 * before them (whole batches, in order); a commit that fails makes every later write fail, never silently.
 */
export class LmdbInstanceAuthStore implements InstanceAuthStore {
  private closed = false
  /** Written values not committed yet (null: deleted), by key. */
  private readonly pending = new Map<string, Buffer | null>()
  /** Decoded values by key; an entry over CACHE_BYTES is never kept. */
  private readonly cache = new LRUCache<string, Decoded>({ max: CACHE_ENTRIES, maxSize: CACHE_BYTES })
  private lastCommit: Promise<unknown> = Promise.resolve()
  private queued = 0
  private failure: unknown
  private readonly hold = new CommitHold()

  /** Opened through `LmdbAuthStore.forInstance`; `prefix` starts every key of the instance. */
  constructor(
    private readonly db: Database<Buffer, string>,
    private readonly prefix: string,
    private readonly cipher: AuthCipher | undefined,
  ) {}

  readCreds<T>(): T | undefined {
    const stored = this.stored(this.prefix + CREDS_KEY)
    return stored ? (decodeValue(stored, this.cipher) as T) : undefined
  }

  /** Whether credentials are stored, written ones included. */
  hasCreds(): boolean {
    return this.stored(this.prefix + CREDS_KEY) !== undefined
  }

  async writeCreds(creds: unknown): Promise<void> {
    await this.write([
      { key: this.prefix + CREDS_KEY, stored: encodeValue(creds, this.cipher), value: creds },
    ])
  }

  async getKeys(
    type: string,
    ids: readonly string[],
    options: KeyReadOptions = {},
  ): Promise<Record<string, unknown>> {
    const found: Record<string, unknown> = {}
    for (const id of ids) {
      const key = this.keyOf(type, id)
      if (options.readOnly) {
        const cached = this.cache.get(key)
        if (cached !== undefined) {
          found[id] = cached
          continue
        }
      }
      const stored = this.stored(key)
      if (!stored) continue
      const value = decodeValue(stored, this.cipher)
      if (options.readOnly) this.remember(key, value, stored.length)
      found[id] = value
    }
    return found
  }

  async setKeys(batch: KeyBatch): Promise<void> {
    const entries: Entry[] = []
    for (const [type, values] of Object.entries(batch)) {
      for (const [id, value] of Object.entries(values ?? {})) {
        const deleted = value === null || value === undefined
        entries.push({
          key: this.keyOf(type, id),
          stored: deleted ? null : encodeValue(value, this.cipher),
          value,
        })
      }
    }
    if (entries.length === 0) return
    await this.write(entries)
  }

  /**
   * Queues one transaction of writes, visible to reads at once. Past MAX_QUEUED uncommitted transactions the
   * caller waits for the commits, so a writer faster than the disk cannot grow the queue without bound.
   */
  private async write(entries: Entry[]): Promise<void> {
    this.assertOpen()
    if (this.failure !== undefined)
      throw new Error('an earlier write of this auth store failed', { cause: this.failure })
    for (const entry of entries) {
      this.pending.set(entry.key, entry.stored)
      this.updateCached(entry)
    }
    this.queued += 1
    // Writes queued in one event turn commit in one transaction (lmdb's event-turn batching), in call order,
    // on lmdb's write thread: the last one's promise resolves when they all are committed.
    const written = this.hold.run(() => {
      let last: Promise<unknown> = Promise.resolve()
      for (const { key, stored } of entries)
        last = stored === null ? this.db.remove(key) : this.db.put(key, stored)
      return last
    })
    this.lastCommit = written.then(
      () => {
        this.queued -= 1
        for (const { key, stored } of entries) if (this.pending.get(key) === stored) this.pending.delete(key)
      },
      (error: unknown) => {
        this.queued -= 1
        this.failure = error
      },
    )
    // Held writes wait for their holder, who may be this writer: it is never made to wait for them.
    if (this.queued > MAX_QUEUED && !this.hold.active) await this.lastCommit
  }

  /** Whether a new session may use this store: not once a write failed or was dropped (it reads afresh). */
  get usable(): boolean {
    return !this.closed && this.failure === undefined
  }

  holdWrites(): (kept?: boolean) => void {
    return this.hold.hold()
  }

  get holding(): boolean {
    return this.hold.active
  }

  async settled(): Promise<void> {
    await this.hold.released()
    await this.lastCommit
  }

  /** A cached key takes the written value (a copy, as a read would decode it), or leaves the cache. */
  private updateCached({ key, stored, value }: Entry): void {
    if (!this.cache.has(key)) return
    const copy = stored === null ? NOT_COPIED : copyAsDecoded(value)
    if (stored === null || copy === NOT_COPIED) this.cache.delete(key)
    else this.remember(key, copy, stored.length)
  }

  private remember(key: string, value: unknown, size: number): void {
    if (value === null || value === undefined) this.cache.delete(key)
    else this.cache.set(key, value, { size })
  }

  async committed(): Promise<void> {
    await this.lastCommit
  }

  async durable(): Promise<void> {
    if (!this.hold.active) await this.lastCommit
    if (this.failure !== undefined)
      throw new Error('a write of this auth store failed', { cause: this.failure })
  }

  async countKeys(type: string): Promise<number> {
    const start = this.keyOf(type, '')
    return this.db.getKeysCount({ start, end: `${start.slice(0, -1)}${AFTER_SEPARATOR}` })
  }

  /** Waits for pending writes and drops what the instance holds in memory; the shared environment stays open. */
  async close(): Promise<void> {
    if (this.closed) return
    this.closed = true
    this.hold.releaseAll()
    await this.lastCommit
    await this.db.flushed
    this.cache.clear()
  }

  /** A socket that outlives its instance's store (it is being torn down) gets an error, never a closed file. */
  private assertOpen(): void {
    if (this.closed) throw new Error('the auth store of this instance is closed')
  }

  private keyOf(type: string, id: string): string {
    return `${this.prefix}${type}${SEPARATOR}${id}`
  }

  private stored(key: string): Buffer | undefined {
    this.assertOpen()
    const stored = this.pending.has(key) ? this.pending.get(key) : this.db.get(key)
    return stored ?? undefined
  }
}

/**
 * Every instance's credentials and Signal keys, in one LMDB environment (`auth/` in the data folder, readable
 * by the user only), each instance under its own key prefix: one environment's native memory for all
 * accounts instead of one per account. A per-instance environment left by an earlier version
 * (`instances/<id>/auth`) is imported once, the first time the instance is looked up, then deleted.
 */
export class LmdbAuthStore implements AuthStore {
  private readonly stores = new Map<string, LmdbInstanceAuthStore>()
  private readonly db: RootDatabase<Buffer, string>
  private closing: Promise<void> | undefined

  constructor(
    private readonly dataDir: string,
    private readonly cipher?: AuthCipher,
  ) {
    const dir = join(dataDir, 'auth')
    mkdirSync(dir, { recursive: true, mode: 0o700 })
    chmodSync(dir, 0o700)
    this.db = handledBatchStarts(open<Buffer, string>({ path: dir, encoding: 'binary', compression: false }))
    for (const file of readdirSync(dir)) chmodSync(join(dir, file), 0o600)
  }

  /** The folder an instance's files live in, when it has any. */
  instanceDir(instanceId: string): string {
    return join(this.dataDir, 'instances', instanceId)
  }

  /** Credentials are read from the memory-mapped file on demand; an earlier version's files are imported. */
  async load(instanceIds: readonly string[]): Promise<void> {
    for (const instanceId of instanceIds) this.importLegacy(instanceId)
  }

  /** Nothing to read again: this process is the embedded store's only writer. */
  async reload(): Promise<void> {}

  async exists(instanceId: string): Promise<boolean> {
    this.importLegacy(instanceId)
    const store = this.stores.get(instanceId)
    return store ? store.hasCreds() : this.db.get(prefixOf(instanceId) + CREDS_KEY) !== undefined
  }

  async countEntries(instanceId: string): Promise<number> {
    return this.entries(instanceId)
  }

  forInstance(instanceId: string): LmdbInstanceAuthStore {
    if (this.closing) throw new Error('the auth store is closed')
    let store = this.stores.get(instanceId)
    // A store a write failed on, or whose held writes were dropped, is left to the session that used it.
    if (!store?.usable) {
      this.importLegacy(instanceId)
      store = new LmdbInstanceAuthStore(this.db, prefixOf(instanceId), this.cipher)
      this.stores.set(instanceId, store)
    }
    return store
  }

  async wipe(instanceId: string): Promise<void> {
    await this.release(instanceId)
    await this.deleteEntries(instanceId)
    rmSync(this.legacyDir(instanceId), { recursive: true, force: true })
  }

  /** Also deletes the instance's folder, if it has one. */
  async remove(instanceId: string): Promise<void> {
    await this.release(instanceId)
    await this.deleteEntries(instanceId)
    rmSync(this.instanceDir(instanceId), { recursive: true, force: true })
  }

  /** Every stored value, as stored (encoded, encrypted when there is a cipher), for copying the store elsewhere. */
  *export(): Generator<{ instanceId: string; type: string; id: string; value: Buffer }> {
    for (const { key, value } of this.db.getRange({})) {
      const [instanceId, type, ...id] = key.split(SEPARATOR)
      if (instanceId === undefined || type === undefined) continue
      yield type === CREDS_KEY && id.length === 0
        ? { instanceId, type: 'creds', id: '', value }
        : { instanceId, type, id: id.join(SEPARATOR), value }
    }
  }

  /** Closes every instance's store, then the environment. */
  close(): Promise<void> {
    this.closing ??= (async () => {
      await Promise.all([...this.stores.keys()].map((id) => this.release(id)))
      await this.db.close()
    })()
    return this.closing
  }

  private async release(instanceId: string): Promise<void> {
    const store = this.stores.get(instanceId)
    this.stores.delete(instanceId)
    await store?.close()
  }

  private async deleteEntries(instanceId: string): Promise<void> {
    await this.db.transaction(() => {
      for (const key of Array.from(this.db.getKeys(rangeOf(instanceId)))) this.db.removeSync(key)
    })
  }

  /** Imports an earlier version's environment of the instance, unless the shared one already has its data. */
  private importLegacy(instanceId: string): void {
    const dir = this.legacyDir(instanceId)
    if (!existsSync(dir)) return
    if (this.entries(instanceId) === 0) {
      const prefix = prefixOf(instanceId)
      const entries = readLegacyAuth(dir)
      this.db.transactionSync(() => {
        for (const [key, value] of entries)
          this.db.putSync(prefix + key.replace(LEGACY_SEPARATOR, SEPARATOR), value)
      })
    }
    rmSync(dir, { recursive: true, force: true })
  }

  private entries(instanceId: string): number {
    return this.db.getKeysCount(rangeOf(instanceId))
  }

  private legacyDir(instanceId: string): string {
    return join(this.instanceDir(instanceId), 'auth')
  }
}

function prefixOf(instanceId: string): string {
  if (instanceId === '' || instanceId.includes(SEPARATOR)) throw new Error(`bad instance id: ${instanceId}`)
  return instanceId + SEPARATOR
}

function rangeOf(instanceId: string): { start: string; end: string } {
  const start = prefixOf(instanceId)
  return { start, end: `${instanceId}${AFTER_SEPARATOR}` }
}
