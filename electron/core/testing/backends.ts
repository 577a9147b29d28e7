import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, describe } from 'node:test'
import type pg from 'pg'
import type { StoreChoice } from '../config'
import { openDatabase, type RootDatabase } from '../store/lmdb/database'
import { migratedPool, postgresMissing, startPostgres, type PostgresServer } from './postgres-server'

/** One test's storage on a backend: its data folder, and the backend's own handle on it. */
export type Storage =
  { kind: 'lmdb'; dataDir: string; db: RootDatabase } | { kind: 'postgres'; dataDir: string; pool: pg.Pool }

type Kind = StoreChoice['kind']

/** How to open a part of the store on each backend: a contract suite's one line per backend. */
export type PerBackend<T> = { [K in Kind]: (storage: Extract<Storage, { kind: K }>) => T }

/** Opens a part on the storage's backend. */
export function openOn<T>(storage: Storage, open: PerBackend<T>): T {
  return (open[storage.kind] as (storage: Storage) => T)(storage)
}

/** A backend as the contract suites use it. */
export interface TestBackend {
  kind: Kind
  /** Fresh, empty storage (removed after the suite). */
  fresh(): Promise<Storage>
  /** The same storage opened again, as after a restart (what was durable is there, nothing else). */
  restart(storage: Storage): Promise<Storage>
}

/**
 * Runs `body` once per backend, in a suite named after it: LMDB in temporary folders, PostgreSQL on a
 * throwaway cluster started for the suite, a new database per storage (skipped without PostgreSQL, except
 * under CI: see postgresMissing).
 */
export function eachBackend(body: (backend: TestBackend) => void): void {
  describe('lmdb', () => {
    const dirs: string[] = []
    const open = new Map<string, RootDatabase>()
    after(async () => {
      for (const db of open.values()) await db.close()
      for (const dir of dirs) rmSync(dir, { recursive: true, force: true })
    })
    const at = (dataDir: string): Storage => {
      const db = openDatabase(dataDir)
      open.set(dataDir, db)
      return { kind: 'lmdb', dataDir, db }
    }
    body({
      kind: 'lmdb',
      fresh: async () => {
        const dataDir = mkdtempSync(join(tmpdir(), 'linkdesk-store-'))
        dirs.push(dataDir)
        return at(dataDir)
      },
      restart: async (storage) => {
        await open.get(storage.dataDir)?.close()
        open.delete(storage.dataDir)
        return at(storage.dataDir)
      },
    })
  })
  describe('postgres', { skip: postgresMissing() }, () => {
    let server: PostgresServer | undefined
    const pools: pg.Pool[] = []
    const dirs: string[] = []
    before(async () => {
      server = await startPostgres()
    })
    after(async () => {
      await Promise.all(pools.map((pool) => pool.end()))
      server?.stop()
      for (const dir of dirs) rmSync(dir, { recursive: true, force: true })
    })
    body({
      kind: 'postgres',
      fresh: async () => {
        if (!server) throw new Error('the PostgreSQL suite has not started')
        const pool = await migratedPool(server)
        pools.push(pool)
        const dataDir = mkdtempSync(join(tmpdir(), 'linkdesk-store-'))
        dirs.push(dataDir)
        return { kind: 'postgres', dataDir, pool }
      },
      // Every read goes to the database: a new store on the same pool starts from what was committed.
      restart: async (storage) => storage,
    })
  })
}
