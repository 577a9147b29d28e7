import type { OpenStores } from '../backend'
import { PollVoteTally } from '../poll-votes'
import { PostgresAuthStore } from './auth'
import { PostgresEventStore } from './events'
import { PostgresLedgerRecords } from './ledger'
import { PostgresMessageStore } from './messages'
import { PostgresPollVotes } from './poll-votes'
import { openPool, type SharedPool } from './pool'
import { migrate } from './schema'
import { TurnCommit } from './turn-commit'
import { PostgresSettingsStore } from './settings'
import { PostgresUploads } from './uploads'

/** What the PostgreSQL backend is opened with besides every backend's options. */
export interface PostgresOptions {
  /** The node's pool, opened by the composition root and shared with the cluster (opened here if not given). */
  pool?: SharedPool
}

/** The shared store: one PostgreSQL database, its schema first brought up to this version. */
export const openStores: OpenStores<'postgres', PostgresOptions> = async ({ url }, options) => {
  const { dataDir, cipher, logger, fence } = options
  const pool = options.pool ?? openPool(url, options)
  try {
    await migrate(pool, logger)
    const auth = new PostgresAuthStore(pool, dataDir, cipher, fence)
    // The message and event stores commit together: an incoming message's row goes with its event.
    const commits = new TurnCommit(pool, fence)
    const events = new PostgresEventStore(pool, fence, commits)
    const settings = await PostgresSettingsStore.open(pool, options.signals, fence)
    return {
      kind: 'postgres',
      settings,
      auth,
      events,
      sharedLog: events,
      eventDurability: 'commit',
      messages: new PostgresMessageStore(pool, {}, fence, commits),
      ledger: new PostgresLedgerRecords(pool, fence),
      polls: new PollVoteTally(new PostgresPollVotes(pool, fence)),
      uploads: new PostgresUploads(pool, fence),
      close: async () => {
        settings.close()
        await auth.close()
        await pool.end()
      },
    }
  } catch (error) {
    await pool.end()
    throw error
  }
}
