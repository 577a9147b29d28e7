import { randomUUID } from 'node:crypto'
import type pg from 'pg'
import type { NodeSignals, WriteFence } from '../../contract/coordination'
import { CachedSettingsStore } from '../cached-settings-store'
import type { AllSettings, SettingsKind, SettingsRecords } from '../settings-store'
import { inTransaction } from './transaction'
import { claimInTransaction } from './write-fence'

const KINDS: readonly SettingsKind[] = ['tokens', 'instances', 'webhooks']

/**
 * The settings in PostgreSQL: a table per kind (`tokens`, `instances`, `webhooks`), each record whole (jsonb)
 * under its id. Read once when opened; each change is one transaction. In a cluster each change is announced
 * after its commit, and the peers read the kind again; an instance's own write (SettingsEdit.of) is behind the
 * fence: a node that lost the instance writes nothing.
 */
export class PostgresSettingsStore extends CachedSettingsStore {
  /** Tells this store's own change notifications from the peers'. */
  private readonly origin = randomUUID()
  private constructor(
    private readonly pool: pg.Pool,
    cache: AllSettings,
    private readonly notifications: NodeSignals | undefined,
    private readonly fence: WriteFence | undefined,
  ) {
    super(cache)
  }

  static async open(
    pool: pg.Pool,
    notifications?: NodeSignals,
    fence?: WriteFence,
  ): Promise<PostgresSettingsStore> {
    const cache: AllSettings = {
      tokens: await readKind(pool, 'tokens'),
      instances: await readKind(pool, 'instances'),
      webhooks: await readKind(pool, 'webhooks'),
    }
    const store = new PostgresSettingsStore(pool, cache, notifications, fence)
    notifications?.on('linkdesk_settings', (payload) => {
      const [origin, kind] = payload.split(' ')
      // This node's own changes are in its copy already.
      if (origin === store.origin || !KINDS.includes(kind as SettingsKind)) return
      void store.reload(kind as SettingsKind).catch(() => undefined)
    })
    return store
  }

  /** Reads a kind again (a peer changed it, or an id not known here may have been made by a peer). */
  override reload(kind: SettingsKind): Promise<void> {
    return this.refresh(kind, () => readKind(this.pool, kind))
  }

  /** Reads one record again (this node adopted the instance, or a peer announced its change). */
  override reloadRecord(kind: SettingsKind, id: string): Promise<void> {
    return this.refreshRecord(kind, id, async () => {
      const { rows } = await this.pool.query<{ record: never }>(`SELECT record FROM ${kind} WHERE id = $1`, [
        id,
      ])
      return rows[0]?.record
    })
  }

  protected async persist<K extends SettingsKind>(
    kind: K,
    { put, remove, of }: { put: Array<SettingsRecords[K]>; remove: string[]; of: string | undefined },
  ): Promise<void> {
    await inTransaction(this.pool, async (client) => {
      if (of !== undefined) await claimInTransaction(client, this.fence, [of])
      if (remove.length > 0) await client.query(`DELETE FROM ${kind} WHERE id = ANY($1)`, [remove])
      for (const record of put) {
        await client.query(
          `INSERT INTO ${kind} (id, record) VALUES ($1, $2)
           ON CONFLICT (id) DO UPDATE SET record = EXCLUDED.record`,
          [record.id, JSON.stringify(record)],
        )
      }
    })
    void this.notifications?.notify('linkdesk_settings', `${this.origin} ${kind}`)
  }
}

async function readKind<K extends SettingsKind>(pool: pg.Pool, kind: K): Promise<AllSettings[K]> {
  const { rows } = await pool.query<{ id: string; record: never }>(`SELECT id, record FROM ${kind}`)
  return Object.fromEntries(rows.map(({ id, record }) => [id, record])) as AllSettings[K]
}
