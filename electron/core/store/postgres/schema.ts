import { fileURLToPath } from 'node:url'
import { runner } from 'node-pg-migrate'
import type pg from 'pg'
import type { Logger } from '../../logger'

/** The folder of the schema's migrations: SQL files, applied in the order of their names. */
const MIGRATIONS = fileURLToPath(new URL('./migrations', import.meta.url))

/**
 * Brings the database's schema up to this version (node-pg-migrate: the migrations not yet applied, in one
 * transaction, recorded in `linkdesk_migrations`, under its advisory lock: nodes starting together wait
 * for it in turn, and the ones after the first find nothing left to apply).
 */
export async function migrate(pool: pg.Pool, logger: Logger): Promise<void> {
  const log = logger.child({ module: 'postgres' })
  const client = await pool.connect()
  let applied: Awaited<ReturnType<typeof runner>>
  try {
    applied = await runner({
      dbClient: client,
      dir: MIGRATIONS,
      direction: 'up',
      migrationsTable: 'linkdesk_migrations',
      singleTransaction: true,
      // The library's default fails a second node at once instead of letting it wait its turn.
      advisoryLockMode: 'wait',
      log: () => undefined,
    })
  } finally {
    client.release()
  }
  if (applied.length > 0)
    log.info({ migrations: applied.map((migration) => migration.name) }, 'schema migrated')
}
