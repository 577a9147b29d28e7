import type pg from 'pg'
import type { LedgerEntry, LedgerRecords } from '../ledger-records'

/** The idempotency ledger's entries in PostgreSQL (`send_idempotency`), each write committed on its own. */
export class PostgresLedgerRecords implements LedgerRecords {
  constructor(private readonly pool: pg.Pool) {}

  async get(instanceId: string, key: string): Promise<LedgerEntry | undefined> {
    const { rows } = await this.pool.query<{ entry: LedgerEntry }>(
      'SELECT entry FROM send_idempotency WHERE instance_id = $1 AND key = $2',
      [instanceId, key],
    )
    return rows[0]?.entry
  }

  async put(instanceId: string, key: string, entry: LedgerEntry): Promise<void> {
    await this.pool.query(
      `INSERT INTO send_idempotency (instance_id, key, entry, at) VALUES ($1, $2, $3, $4)
       ON CONFLICT (instance_id, key) DO UPDATE SET entry = EXCLUDED.entry, at = EXCLUDED.at`,
      [instanceId, key, JSON.stringify(entry), entry.at],
    )
  }

  async removeBefore(cutoff: number): Promise<void> {
    await this.pool.query('DELETE FROM send_idempotency WHERE at < $1', [cutoff])
  }
}
