import pg from 'pg'
import type { Logger } from '../../logger'

/** Connections per node: the API, the delivery workers, every instance's writes and the cluster share them. */
const POOL_SIZE = 10

/** A node's pool on the shared PostgreSQL store, which the stores and the node's cluster part share. */
export type SharedPool = pg.Pool

/** One connection of the pool (a transaction's, or one checked out for a fence). */
export type SharedClient = pg.ClientBase

/**
 * Opens a node's pool on the PostgreSQL store at `url` (no connection is made until the first query): the
 * shared one, or a smaller one of its own (`size`: the cluster's lease renewals).
 */
export function openPool(
  url: string,
  options: { logger: Logger; fsync?: boolean; size?: number },
): SharedPool {
  // The same promise as the embedded store's: what is acknowledged survives the app being killed (PostgreSQL
  // has committed it) and, with --fsync, a power loss too (the commit then waits for the WAL's flush).
  const pool = new pg.Pool({
    connectionString: url,
    max: options.size ?? POOL_SIZE,
    ...(options.fsync ? {} : { options: '-c synchronous_commit=off' }),
  })
  // A connection that fails while idle in the pool is replaced; the pool must not crash the process.
  pool.on('error', (error) => options.logger.warn({ err: error }, 'a pooled PostgreSQL connection failed'))
  return pool
}
