import { mkdirSync } from 'node:fs'
import { join } from 'node:path'
import { open, type RootDatabase } from 'lmdb'

export type { Database, RootDatabase } from 'lmdb'

/**
 * The app's durable database (LMDB, through the `lmdb` package): ACID transactions that survive a crash at any
 * moment, ordered keys for range scans, and prebuilt N-API binaries that run in plain Node and in Electron
 * alike. Each part opens its own named sub-database from this root.
 */
export function openDatabase(dataDir: string): RootDatabase {
  const path = join(dataDir, 'db')
  mkdirSync(path, { recursive: true, mode: 0o700 })
  return open({ path, maxDbs: 32, compression: false, encoding: 'msgpack' })
}
