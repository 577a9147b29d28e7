import { createHash } from 'node:crypto'
import pg from 'pg'
import { silentLogger } from '../logger'
import { openDatabase } from '../store/lmdb/database'
import { LmdbEventStore } from '../store/lmdb/events'
import { PostgresEventStore } from '../store/postgres/events'
import { migrate } from '../store/postgres/schema'

/**
 * Which store the test fixtures run on: LMDB (the default), or PostgreSQL when LINKDESK_TEST_STORE=postgres;
 * `npm test` runs the core's suites once more that way, on one cluster it starts for the run and names in
 * LINKDESK_TEST_PG_URL.
 */
export function testStore(): 'lmdb' | 'postgres' {
  return process.env.LINKDESK_TEST_STORE === 'postgres' ? 'postgres' : 'lmdb'
}

/**
 * The PostgreSQL database of a test's data folder on the run's cluster, created and migrated on first use: a
 * process the test starts on the same folder (a crash test's child, a restarted core) finds the same data.
 */
export async function testDatabaseFor(dataDir: string): Promise<string> {
  const cluster = process.env.LINKDESK_TEST_PG_URL
  if (!cluster)
    throw new Error('LINKDESK_TEST_STORE=postgres needs LINKDESK_TEST_PG_URL (scripts/run-tests.mjs sets it)')
  const name = `t_${createHash('sha256').update(dataDir).digest('hex').slice(0, 24)}`
  const admin = new pg.Client({ connectionString: cluster })
  await admin.connect()
  try {
    await admin.query(`CREATE DATABASE ${name}`)
  } catch (error) {
    // 42P04: it exists already (made by an earlier process on this folder)
    if ((error as { code?: string }).code !== '42P04') throw error
  } finally {
    await admin.end()
  }
  const url = new URL(cluster)
  url.pathname = `/${name}`
  const pool = new pg.Pool({ connectionString: url.href, max: 1 })
  try {
    await migrate(pool, silentLogger())
  } finally {
    await pool.end()
  }
  return url.href
}

/** The environment that points a `serve` process on this data folder at the tests' store (none for LMDB). */
export async function testStoreEnv(dataDir: string): Promise<Record<string, string>> {
  return testStore() === 'postgres' ? { LINKDESK_STORE: await testDatabaseFor(dataDir) } : {}
}

/**
 * The event store of a test's data folder: LMDB in it, or with LINKDESK_TEST_STORE=postgres the folder's
 * PostgreSQL database (a crash test's child process on the same folder finds the same data).
 */
export async function openTestEventStore(dataDir: string) {
  if (testStore() === 'postgres') {
    const pool = new pg.Pool({ connectionString: await testDatabaseFor(dataDir) })
    return {
      deps: { store: new PostgresEventStore(pool), durability: 'commit' as const },
      close: () => pool.end(),
    }
  }
  const db = openDatabase(dataDir)
  return {
    deps: { store: new LmdbEventStore(db), durability: 'journal' as const },
    close: () => db.close(),
  }
}
