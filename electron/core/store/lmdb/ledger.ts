import type { LedgerEntry, LedgerRecords } from '../ledger-records'
import type { Database, RootDatabase } from './database'
import { writeBatch } from './write-batch'

type Key = [string, string]

/** The ledger's entries in the LMDB environment, keyed `[instanceId, key]`. */
export class LmdbLedgerRecords implements LedgerRecords {
  private readonly db: Database<LedgerEntry, Key>

  constructor(root: RootDatabase) {
    this.db = root.openDB<LedgerEntry, Key>({ name: 'send-idempotency', encoding: 'msgpack' })
  }

  async get(instanceId: string, key: string): Promise<LedgerEntry | undefined> {
    return this.db.get([instanceId, key])
  }

  async put(instanceId: string, key: string, entry: LedgerEntry): Promise<void> {
    await this.db.put([instanceId, key], entry)
  }

  /** Every entry (for copying the store elsewhere). */
  *export(): Generator<{ instanceId: string; key: string; entry: LedgerEntry }> {
    for (const { key, value } of this.db.getRange({})) yield { instanceId: key[0], key: key[1], entry: value }
  }

  async removeBefore(cutoff: number): Promise<void> {
    await writeBatch(this.db, () => {
      for (const { key, value } of this.db.getRange()) if (value.at < cutoff) this.db.remove(key)
    })
  }
}
