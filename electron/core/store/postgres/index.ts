import pg from 'pg'
import { Cluster } from '../../cluster/cluster'
import type { OpenStores } from '../backend'
import { PollVoteTally } from '../poll-votes'
import { PostgresAuthStore } from './auth'
import { PostgresEventStore } from './events'
import { PostgresLedgerRecords } from './ledger'
import { PostgresMessageStore } from './messages'
import { PostgresPollVotes } from './poll-votes'
import { migrate } from './schema'
import { PostgresSettingsStore } from './settings'
import { PostgresUploads } from './uploads'

/** Connections per node: the API, the delivery workers and every instance's writes share them. */
const POOL_SIZE = 10

/** The shared store: one PostgreSQL database, its schema first brought up to this version. */
export const openStores: OpenStores<'postgres'> = async ({ url }, options) => {
  const { dataDir, cipher, logger } = options
  // The same promise as the embedded store's: what is acknowledged survives the app being killed (PostgreSQL
  // has committed it) and, with --fsync, a power loss too (the commit then waits for the WAL's flush).
  const pool = new pg.Pool({
    connectionString: url,
    max: POOL_SIZE,
    ...(options.fsync ? {} : { options: '-c synchronous_commit=off' }),
  })
  // A connection that fails while idle in the pool is replaced; the pool must not crash the process.
  pool.on('error', (error) => logger.warn({ err: error }, 'a pooled PostgreSQL connection failed'))
  try {
    await migrate(pool, logger)
    const cluster = options.node ? await Cluster.open({ pool, url, logger, ...options.node }) : undefined
    const auth = new PostgresAuthStore(pool, dataDir, cipher, cluster)
    const events = new PostgresEventStore(pool, cluster)
    return {
      kind: 'postgres',
      settings: await PostgresSettingsStore.open(pool, cluster?.channel),
      auth,
      events,
      sharedLog: events,
      eventDurability: 'commit',
      messages: new PostgresMessageStore(pool, {}, cluster),
      ledger: new PostgresLedgerRecords(pool),
      polls: new PollVoteTally(new PostgresPollVotes(pool)),
      uploads: new PostgresUploads(pool),
      ...(cluster && { cluster }),
      close: async () => {
        await auth.close()
        await pool.end()
      },
    }
  } catch (error) {
    await pool.end()
    throw error
  }
}
