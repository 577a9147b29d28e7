import type pg from 'pg'
import {
  CachedSettingsStore,
  type AllSettings,
  type SettingsKind,
  type SettingsRecords,
} from '../settings-store'
import { inTransaction } from './transaction'

const KINDS: readonly SettingsKind[] = ['tokens', 'instances', 'webhooks']

/**
 * The settings in PostgreSQL: a table per kind (`tokens`, `instances`, `webhooks`), each record whole (jsonb)
 * under its id. Read once when opened; each change is one transaction.
 */
export class PostgresSettingsStore extends CachedSettingsStore {
  private constructor(
    private readonly pool: pg.Pool,
    cache: AllSettings,
  ) {
    super(cache)
  }

  static async open(pool: pg.Pool): Promise<PostgresSettingsStore> {
    const cache: AllSettings = { tokens: {}, instances: {}, webhooks: {} }
    for (const kind of KINDS) {
      const { rows } = await pool.query<{ id: string; record: never }>(`SELECT id, record FROM ${kind}`)
      cache[kind] = Object.fromEntries(rows.map(({ id, record }) => [id, record]))
    }
    return new PostgresSettingsStore(pool, cache)
  }

  protected async persist<K extends SettingsKind>(
    kind: K,
    { put, remove }: { put: Array<SettingsRecords[K]>; remove: string[] },
  ): Promise<void> {
    await inTransaction(this.pool, async (client) => {
      if (remove.length > 0) await client.query(`DELETE FROM ${kind} WHERE id = ANY($1)`, [remove])
      for (const record of put) {
        await client.query(
          `INSERT INTO ${kind} (id, record) VALUES ($1, $2)
           ON CONFLICT (id) DO UPDATE SET record = EXCLUDED.record`,
          [record.id, JSON.stringify(record)],
        )
      }
    })
  }
}
