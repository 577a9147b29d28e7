import { rmSync } from 'node:fs'
import { join } from 'node:path'
import { LRUCache } from 'lru-cache'
import type pg from 'pg'
import { type AuthCipher, decodeValue, encodeValue } from '../auth-codec'
import type { AuthStore, InstanceAuthStore, KeyBatch } from '../auth-store'
import { CommitHold } from '../commit-hold'
import { GroupCommit } from './group-commit'
import type { JsonStatement } from './statements'
import { runFenced, type WriteFence } from './write-fence'
import { inTransaction } from './transaction'

/** One value written: null deletes. */
interface AuthWrite {
  type: string
  id: string
  stored: Buffer | null
}

/** A key known to have no value. */
const ABSENT = 0 as const
/** The credentials' row: a type no Signal key has. */
const CREDS = { type: 'creds', id: '' }
/** Uncommitted writes an instance may have queued before its writers wait for the database. */
const MAX_QUEUED = 64
/** Stored values an instance keeps in memory (the sessions and keys it reads on every message), by bytes. */
const CACHE_BYTES = 1024 * 1024
const CACHE_ENTRIES = 4096

/**
 * One instance's credentials and Signal keys in PostgreSQL (`auth_entries`). As in the embedded store, a write
 * resolves once queued and is visible to reads at once; queued writes commit in call order, those queued
 * while a commit is under way together in the next transaction, each batch whole or not at all. A commit that
 * fails makes every later write fail, never silently. The credentials are kept in memory (read synchronously).
 */
class PostgresInstanceAuthStore implements InstanceAuthStore {
  private readonly pending = new Map<string, Buffer | null>()
  /**
   * Committed values read or written lately (null: known absent). Only this node writes the instance's keys,
   * so what it read or wrote stays true: a decrypt reads its session from memory, not over the network.
   */
  private readonly cache = new LRUCache<string, Buffer | typeof ABSENT>({
    max: CACHE_ENTRIES,
    maxSize: CACHE_BYTES,
    sizeCalculation: (value) => (value === ABSENT ? 1 : Math.max(1, value.length)),
  })
  private readonly group: GroupCommit<AuthWrite>
  private lastCommit: Promise<unknown> = Promise.resolve()
  private queued = 0
  private failure: unknown
  private closed = false
  private readonly hold = new CommitHold()
  /** The credentials as last committed: what a store that replaces this one after a failure starts from. */
  durableCreds: Buffer | undefined

  constructor(
    private readonly pool: pg.Pool,
    private readonly instanceId: string,
    private creds: Buffer | undefined,
    private readonly cipher: AuthCipher | undefined,
    fence: WriteFence | undefined,
  ) {
    this.durableCreds = creds
    this.group = new GroupCommit((writes) =>
      runFenced(pool, fence, () => [instanceId], authStatements(instanceId, writes)),
    )
  }

  readCreds<T>(): T | undefined {
    return this.creds ? (decodeValue(this.creds, this.cipher) as T) : undefined
  }

  hasCreds(): boolean {
    return this.creds !== undefined
  }

  async writeCreds(creds: unknown): Promise<void> {
    const stored = encodeValue(creds, this.cipher)
    this.creds = stored
    await this.write([{ ...CREDS, stored }])
  }

  async getKeys(type: string, ids: readonly string[]): Promise<Record<string, unknown>> {
    this.assertOpen()
    const found: Record<string, unknown> = {}
    const unknown: string[] = []
    for (const id of ids) {
      const key = keyOf(type, id)
      const stored = this.pending.has(key) ? this.pending.get(key) : this.cache.get(key)
      if (stored === undefined) unknown.push(id)
      else if (stored !== null && stored !== ABSENT) found[id] = decodeValue(stored, this.cipher)
    }
    if (unknown.length === 0) return found
    const { rows } = await this.pool.query<{ id: string; value: Buffer }>(
      'SELECT id, value FROM auth_entries WHERE instance_id = $1 AND type = $2 AND id = ANY($3)',
      [this.instanceId, type, unknown],
    )
    const read = new Map(rows.map(({ id, value }) => [id, value]))
    for (const id of unknown) {
      // A write queued while the read was under way is newer than what it read.
      const key = keyOf(type, id)
      if (this.pending.has(key)) {
        const stored = this.pending.get(key)
        if (stored) found[id] = decodeValue(stored, this.cipher)
        continue
      }
      // A write committed while the read was under way left its value in the cache: newer than what it read.
      const value = this.cache.get(key) ?? read.get(id) ?? ABSENT
      this.cache.set(key, value)
      if (value !== ABSENT) found[id] = decodeValue(value, this.cipher)
    }
    return found
  }

  async setKeys(batch: KeyBatch): Promise<void> {
    const writes: AuthWrite[] = []
    for (const [type, values] of Object.entries(batch)) {
      for (const [id, value] of Object.entries(values ?? {})) {
        const deleted = value === null || value === undefined
        writes.push({ type, id, stored: deleted ? null : encodeValue(value, this.cipher) })
      }
    }
    if (writes.length > 0) await this.write(writes)
  }

  private async write(writes: AuthWrite[]): Promise<void> {
    this.assertOpen()
    if (this.failure !== undefined)
      throw new Error('an earlier write of this auth store failed', { cause: this.failure })
    for (const { type, id, stored } of writes) this.pending.set(keyOf(type, id), stored)
    this.queued += 1
    this.lastCommit = this.hold
      .run(() => this.group.commit(writes))
      .then(
        () => {
          this.queued -= 1
          for (const { type, id, stored } of writes) {
            const key = keyOf(type, id)
            if (type === CREDS.type && id === CREDS.id && stored) this.durableCreds = stored
            if (this.pending.get(key) !== stored) continue
            this.pending.delete(key)
            this.cache.set(key, stored ?? ABSENT)
          }
        },
        (error: unknown) => {
          this.queued -= 1
          this.failure = error
        },
      )
    // Held writes wait for their holder, who may be this writer: it is never made to wait for them.
    if (this.queued > MAX_QUEUED && !this.hold.active) await this.lastCommit
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

  async committed(): Promise<void> {
    await this.lastCommit
  }

  async durable(): Promise<void> {
    if (!this.hold.active) await this.lastCommit
    if (this.failure !== undefined)
      throw new Error('a write of this auth store failed', { cause: this.failure })
  }

  /**
   * Whether a new session may use this store: not once it is closed or a write failed (what it holds in
   * memory may then differ from the database; a new session reads afresh).
   */
  get usable(): boolean {
    return !this.closed && this.failure === undefined
  }

  async countKeys(type: string): Promise<number> {
    await this.lastCommit
    const { rows } = await this.pool.query<{ n: string }>(
      'SELECT count(*) AS n FROM auth_entries WHERE instance_id = $1 AND type = $2',
      [this.instanceId, type],
    )
    return Number(rows[0]?.n ?? 0)
  }

  async close(): Promise<void> {
    if (this.closed) return
    this.closed = true
    this.hold.releaseAll()
    await this.lastCommit
  }

  private assertOpen(): void {
    if (this.closed) throw new Error('the auth store of this instance is closed')
  }
}

/**
 * Every instance's credentials and Signal keys in PostgreSQL, one row per value (encrypted with the cipher
 * when one is given, as in the embedded store). `load` reads the credentials of the instances about to start.
 */
export class PostgresAuthStore implements AuthStore {
  private readonly stores = new Map<string, PostgresInstanceAuthStore>()
  private readonly creds = new Map<string, Buffer>()
  private closing: Promise<void> | undefined

  constructor(
    private readonly pool: pg.Pool,
    private readonly dataDir: string,
    private readonly cipher?: AuthCipher,
    private readonly fence?: WriteFence,
  ) {}

  async load(instanceIds: readonly string[]): Promise<void> {
    const { rows } = await this.pool.query<{ instance_id: string; value: Buffer }>(
      'SELECT instance_id, value FROM auth_entries WHERE type = $1 AND id = $2 AND instance_id = ANY($3)',
      [CREDS.type, CREDS.id, instanceIds],
    )
    for (const { instance_id: instanceId, value } of rows) this.creds.set(instanceId, value)
  }

  /** Stores values exactly as another store kept them (encoded the same way), in one transaction. */
  async import(entries: ReadonlyArray<{ instanceId: string; type: string; id: string; value: Buffer }>) {
    await inTransaction(this.pool, async (client) => {
      for (let i = 0; i < entries.length; i += 1000) {
        const chunk = entries.slice(i, i + 1000)
        await client.query(
          `INSERT INTO auth_entries (instance_id, type, id, value)
           SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::bytea[])`,
          [
            chunk.map(({ instanceId }) => instanceId),
            chunk.map(({ type }) => type),
            chunk.map(({ id }) => id),
            chunk.map(({ value }) => value),
          ],
        )
      }
    })
  }

  forInstance(instanceId: string): InstanceAuthStore {
    if (this.closing) throw new Error('the auth store is closed')
    let store = this.stores.get(instanceId)
    // A store a write failed on (its node lost the instance meanwhile), or whose held writes were dropped, is
    // left to the session that used it; the next one starts from what is durable.
    if (!store?.usable) {
      store = new PostgresInstanceAuthStore(
        this.pool,
        instanceId,
        store ? store.durableCreds : this.creds.get(instanceId),
        this.cipher,
        this.fence,
      )
      this.stores.set(instanceId, store)
    }
    return store
  }

  /**
   * Drops what is kept in memory of the instance and reads its credentials again: another node may have
   * changed them while it held the instance.
   */
  async reload(instanceId: string): Promise<void> {
    await this.release(instanceId)
    await this.load([instanceId])
  }

  /** Whether credentials are stored: kept in memory (written, maybe not yet committed) or in the database. */
  async exists(instanceId: string): Promise<boolean> {
    if (this.stores.get(instanceId)?.hasCreds()) return true
    const { rowCount } = await this.pool.query(
      'SELECT 1 FROM auth_entries WHERE instance_id = $1 AND type = $2 AND id = $3',
      [instanceId, CREDS.type, CREDS.id],
    )
    return rowCount === 1
  }

  async countEntries(instanceId: string): Promise<number> {
    await this.stores.get(instanceId)?.committed()
    const { rows } = await this.pool.query<{ n: string }>(
      'SELECT count(*) AS n FROM auth_entries WHERE instance_id = $1',
      [instanceId],
    )
    return Number(rows[0]?.n ?? 0)
  }

  async wipe(instanceId: string): Promise<void> {
    await this.release(instanceId)
    await this.pool.query('DELETE FROM auth_entries WHERE instance_id = $1', [instanceId])
  }

  async remove(instanceId: string): Promise<void> {
    await this.wipe(instanceId)
    rmSync(join(this.dataDir, 'instances', instanceId), { recursive: true, force: true })
  }

  close(): Promise<void> {
    this.closing ??= (async () => {
      await Promise.all([...this.stores.keys()].map((id) => this.release(id)))
    })()
    return this.closing
  }

  private async release(instanceId: string): Promise<void> {
    const store = this.stores.get(instanceId)
    this.stores.delete(instanceId)
    this.creds.delete(instanceId)
    await store?.close()
  }
}

function keyOf(type: string, id: string): string {
  return `${type}\u0000${id}`
}

/** Queued writes as statements for one transaction: each key's last write, upserted or deleted. */
function authStatements(instanceId: string, writes: readonly AuthWrite[]): JsonStatement[] {
  const latest = [...new Map(writes.map((write) => [keyOf(write.type, write.id), write])).values()]
  const kept = latest.filter((write): write is AuthWrite & { stored: Buffer } => write.stored !== null)
  const deleted = latest.filter(({ stored }) => stored === null)
  return [
    ...(deleted.length === 0
      ? []
      : [
          {
            sql: `DELETE FROM auth_entries USING jsonb_to_recordset($1::jsonb) AS x(instance_id text, type text, id text)
                  WHERE auth_entries.instance_id = x.instance_id AND auth_entries.type = x.type
                    AND auth_entries.id = x.id`,
            rows: deleted.map(({ type, id }) => ({ instance_id: instanceId, type, id })),
          },
        ]),
    ...(kept.length === 0
      ? []
      : [
          {
            sql: `INSERT INTO auth_entries (instance_id, type, id, value)
                  SELECT instance_id, type, id, decode(value, 'base64')
                  FROM jsonb_to_recordset($1::jsonb) AS x(instance_id text, type text, id text, value text)
                  ON CONFLICT (instance_id, type, id) DO UPDATE SET value = EXCLUDED.value`,
            rows: kept.map(({ type, id, stored }) => ({
              instance_id: instanceId,
              type,
              id,
              value: stored.toString('base64'),
            })),
          },
        ]),
  ]
}
