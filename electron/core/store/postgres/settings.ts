import { randomUUID } from 'node:crypto'
import type pg from 'pg'
import type { NodeSignals, WriteFence } from '../../contract/coordination'
import { CachedSettingsStore } from '../cached-settings-store'
import type { AllSettings, SettingsKind, SettingsRecords } from '../settings-store'
import { inTransaction } from './transaction'
import { claimInTransaction } from './write-fence'

const KINDS: readonly SettingsKind[] = ['tokens', 'instances', 'webhooks']

/** How often a cluster node compares its copy's record versions with the database's (a lost notification). */
const SETTINGS_RECHECK_MS = 30_000

/** A change naming more records than this is announced by its kind alone: the peers read the kind again. */
const IDS_PER_NOTIFICATION = 100

/** Each record's version (the database's at the last read or write here), by kind and id. */
type Versions = Record<SettingsKind, Map<string, string>>

/**
 * The settings in PostgreSQL: a table per kind (`tokens`, `instances`, `webhooks`), each record whole (jsonb)
 * under its id, with a version drawn at every write. Read once when opened; each change is one transaction. In
 * a cluster each change is announced after its commit with the ids it put and removed, and the peers read
 * those records again (one row each); every SETTINGS_RECHECK_MS a node reads the versions alone and re-reads
 * the records whose version moved, so a lost notification only delays it. An instance's own write
 * (SettingsEdit.of) is behind the fence: a node that lost the instance writes nothing.
 */
export class PostgresSettingsStore extends CachedSettingsStore {
  /** Tells this store's own change notifications from the peers'. */
  private readonly origin = randomUUID()
  private timer: NodeJS.Timeout | undefined
  private constructor(
    private readonly pool: pg.Pool,
    cache: AllSettings,
    private readonly versions: Versions,
    private readonly notifications: NodeSignals | undefined,
    private readonly fence: WriteFence | undefined,
  ) {
    super(cache)
  }

  static async open(
    pool: pg.Pool,
    notifications?: NodeSignals,
    fence?: WriteFence,
    recheckMs = SETTINGS_RECHECK_MS,
  ): Promise<PostgresSettingsStore> {
    const cache = {} as AllSettings
    const versions = {} as Versions
    for (const kind of KINDS) {
      const read = await readKind(pool, kind)
      Object.assign(cache, { [kind]: read.records })
      versions[kind] = read.versions
    }
    const store = new PostgresSettingsStore(pool, cache, versions, notifications, fence)
    notifications?.on('linkdesk_settings', (payload) => {
      const [origin, kind, ...ids] = payload.split(' ')
      // This node's own changes are in its copy already.
      if (origin === store.origin || !KINDS.includes(kind as SettingsKind)) return
      const reading =
        ids.length > 0
          ? Promise.all(ids.map((id) => store.reloadRecord(kind as SettingsKind, id)))
          : store.reload(kind as SettingsKind)
      void reading.catch(() => undefined)
    })
    if (notifications) {
      store.timer = setInterval(() => void store.recheck().catch(() => undefined), recheckMs)
      store.timer.unref()
    }
    return store
  }

  /** Reads a kind again (a change too large to name its records). */
  override reload(kind: SettingsKind): Promise<void> {
    return this.refresh(kind, async () => {
      const read = await readKind(this.pool, kind)
      this.versions[kind] = read.versions
      return read.records
    })
  }

  /** Reads one record again (a peer announced its change, this node adopted the instance, or its id is new here). */
  override reloadRecord(kind: SettingsKind, id: string): Promise<void> {
    return this.refreshRecord(kind, id, async () => {
      const { rows } = await this.pool.query<{ record: never; version: string }>(
        `SELECT record, version FROM ${kind} WHERE id = $1`,
        [id],
      )
      const row = rows[0]
      if (row) this.versions[kind].set(id, row.version)
      else this.versions[kind].delete(id)
      return row?.record
    })
  }

  /** Re-reads the records whose version in the database differs from this copy's (or that came or went). */
  async recheck(): Promise<void> {
    for (const kind of KINDS) {
      const { rows } = await this.pool.query<{ id: string; version: string }>(
        `SELECT id, version FROM ${kind}`,
      )
      const known = this.versions[kind]
      const moved = rows.filter(({ id, version }) => known.get(id) !== version).map(({ id }) => id)
      const stored = new Set(rows.map(({ id }) => id))
      const gone = [...known.keys()].filter((id) => !stored.has(id))
      await Promise.all([...moved, ...gone].map((id) => this.reloadRecord(kind, id)))
    }
  }

  /** Stops the periodic recheck. */
  close(): void {
    clearInterval(this.timer)
  }

  protected async persist<K extends SettingsKind>(
    kind: K,
    { put, remove, of }: { put: Array<SettingsRecords[K]>; remove: string[]; of: string | undefined },
  ): Promise<void> {
    const written = new Map<string, string>()
    await inTransaction(this.pool, async (client) => {
      if (of !== undefined) await claimInTransaction(client, this.fence, [of])
      if (remove.length > 0) await client.query(`DELETE FROM ${kind} WHERE id = ANY($1)`, [remove])
      for (const record of put) {
        const { rows } = await client.query<{ version: string }>(
          `INSERT INTO ${kind} (id, record) VALUES ($1, $2)
           ON CONFLICT (id) DO UPDATE SET record = EXCLUDED.record, version = EXCLUDED.version
           RETURNING version`,
          [record.id, JSON.stringify(record)],
        )
        written.set(record.id, rows[0]!.version)
      }
    })
    for (const id of remove) this.versions[kind].delete(id)
    for (const [id, version] of written) this.versions[kind].set(id, version)
    const ids = [...remove, ...put.map(({ id }) => id)]
    // The peers read again what changed: these records, or the whole kind for a change too large to name.
    const named = ids.length <= IDS_PER_NOTIFICATION ? ` ${ids.join(' ')}` : ''
    void this.notifications?.notify('linkdesk_settings', `${this.origin} ${kind}${named}`)
  }
}

async function readKind<K extends SettingsKind>(
  pool: pg.Pool,
  kind: K,
): Promise<{ records: AllSettings[K]; versions: Map<string, string> }> {
  const { rows } = await pool.query<{ id: string; record: never; version: string }>(
    `SELECT id, record, version FROM ${kind}`,
  )
  return {
    records: Object.fromEntries(rows.map(({ id, record }) => [id, record])) as AllSettings[K],
    versions: new Map(rows.map(({ id, version }) => [id, version])),
  }
}
