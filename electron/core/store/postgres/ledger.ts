import type pg from 'pg'
import type { LedgerEntry, LedgerRecords } from '../ledger-records'
import { fencedStatement, type WriteFence } from './write-fence'

/**
 * The idempotency ledger's entries in PostgreSQL (`send_idempotency`), each write committed on its own, behind
 * the fence in a cluster.
 */
export class PostgresLedgerRecords implements LedgerRecords {
  constructor(
    private readonly pool: pg.Pool,
    private readonly fence?: WriteFence,
  ) {}

  async get(instanceId: string, key: string): Promise<LedgerEntry | undefined> {
    const { rows } = await this.pool.query<{ entry: LedgerEntry }>(
      'SELECT entry FROM send_idempotency WHERE instance_id = $1 AND key = $2',
      [instanceId, key],
    )
    return rows[0]?.entry
  }

  async put(instanceId: string, key: string, entry: LedgerEntry): Promise<void> {
    const params = [instanceId, key, JSON.stringify(entry), entry.at]
    await fencedStatement(this.fence, instanceId, params, (holds) =>
      this.pool.query(
        `INSERT INTO send_idempotency (instance_id, key, entry, at) SELECT $1, $2, $3, $4 WHERE ${holds}
         ON CONFLICT (instance_id, key) DO UPDATE SET entry = EXCLUDED.entry, at = EXCLUDED.at`,
        params,
      ),
    )
  }

  async removeBefore(cutoff: number): Promise<void> {
    await this.pool.query('DELETE FROM send_idempotency WHERE at < $1', [cutoff])
  }
}
