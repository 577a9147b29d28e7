import pg from 'pg'
import type { EventStore } from '../events/event-store'
import { LmdbEventStore } from '../events/lmdb-event-store'
import type { Logger } from '../logger'
import { LmdbLedgerRecords, type LedgerRecords } from '../messages/idempotency-ledger'
import { LmdbMessageStore, type MessageStore } from '../messages/message-store'
import { LmdbPollVotes, type PollVotes } from '../messages/poll-votes'
import { UploadStore, type Uploads } from '../messages/upload-store'
import { type AuthCipher, type AuthStore, LmdbAuthStore } from './auth-store'
import { openDatabase } from './database'
import type { NodeSignals, WriteFence } from '../contract/coordination'
import type { SharedLog } from '../events/log-follower'
import { PostgresAuthStore } from './postgres/auth'
import { PostgresEventStore } from './postgres/events'
import { PostgresLedgerRecords } from './postgres/ledger'
import { PostgresMessageStore } from './postgres/messages'
import { PostgresPollVotes } from './postgres/poll-votes'
import { migrate } from './postgres/schema'
import { PostgresSettingsStore } from './postgres/settings'
import { PostgresUploads } from './postgres/uploads'
import { FileSettingsStore, type SettingsStore } from './settings-store'

/** Where the core keeps its data: the embedded LMDB store in the data folder, or a PostgreSQL database. */
export type StoreChoice = { kind: 'lmdb' } | { kind: 'postgres'; url: string }

/** Every part the core keeps, on one store. */
export interface Stores {
  kind: StoreChoice['kind']
  settings: SettingsStore
  auth: AuthStore
  events: EventStore
  /**
   * When an emitted event is durable: the embedded store journals it first (its commits come in the
   * background); PostgreSQL's commit is the durability point.
   */
  eventDurability: 'journal' | 'commit'
  messages: MessageStore
  ledger: LedgerRecords
  polls: PollVotes
  uploads: Uploads
  /** On PostgreSQL: the event log as every node writes it, read in commit order. */
  sharedLog?: SharedLog
  /** Closes what the stores hold open (after every part using them stopped). */
  close(): Promise<void>
}

/** Connections per node: the API, the delivery workers, every instance's writes and the cluster share them. */
const POOL_SIZE = 10

/** A node's pool on a shared (PostgreSQL) store, which the stores and the node's cluster part share. */
export type SharedPool = pg.Pool

/** Opens a node's pool on the PostgreSQL store at `url` (no connection is made until the first query). */
export function openPool(url: string, options: { logger: Logger; fsync?: boolean }): SharedPool {
  // The same promise as the embedded store's: what is acknowledged survives the app being killed (PostgreSQL
  // has committed it) and, with --fsync, a power loss too (the commit then waits for the WAL's flush).
  const pool = new pg.Pool({
    connectionString: url,
    max: POOL_SIZE,
    ...(options.fsync ? {} : { options: '-c synchronous_commit=off' }),
  })
  // A connection that fails while idle in the pool is replaced; the pool must not crash the process.
  pool.on('error', (error) => options.logger.warn({ err: error }, 'a pooled PostgreSQL connection failed'))
  return pool
}

/** Opens the chosen store; for PostgreSQL, first brings its schema up to this version. */
export async function openStores(
  choice: StoreChoice,
  options: {
    dataDir: string
    cipher?: AuthCipher
    logger: Logger
    fsync?: boolean
    /** On a shared (PostgreSQL) store: the node's pool (opened here unless given), ended by `close`. */
    pool?: SharedPool
    /** On a shared store: what every write of an instance carries (this node's claim on it). */
    fence?: WriteFence
    /** On a shared store: the signals between the nodes sharing it (settings changes). */
    signals?: NodeSignals
  },
): Promise<Stores> {
  const { dataDir, cipher, logger } = options
  if (choice.kind === 'lmdb') {
    const settings = new FileSettingsStore(dataDir)
    const auth = new LmdbAuthStore(dataDir, cipher)
    const db = openDatabase(dataDir)
    return {
      kind: 'lmdb',
      settings,
      auth,
      events: new LmdbEventStore(db),
      eventDurability: 'journal',
      messages: new LmdbMessageStore(db, dataDir),
      ledger: new LmdbLedgerRecords(db),
      polls: new LmdbPollVotes(db),
      uploads: new UploadStore(dataDir),
      close: async () => {
        await auth.close()
        await db.close()
      },
    }
  }
  const pool = options.pool ?? openPool(choice.url, options)
  try {
    await migrate(pool, logger)
    const { fence } = options
    const auth = new PostgresAuthStore(pool, dataDir, cipher, fence)
    const events = new PostgresEventStore(pool, fence)
    return {
      kind: 'postgres',
      settings: await PostgresSettingsStore.open(pool, options.signals),
      auth,
      events,
      sharedLog: events,
      eventDurability: 'commit',
      messages: new PostgresMessageStore(pool, {}, fence),
      ledger: new PostgresLedgerRecords(pool),
      polls: new PostgresPollVotes(pool),
      uploads: new PostgresUploads(pool),
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
