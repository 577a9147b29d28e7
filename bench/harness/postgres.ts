import {
  type PostgresServer,
  postgresMissing,
  startPostgres,
} from '../../electron/core/testing/postgres-server'

/**
 * A PostgreSQL cluster for the bench's PostgreSQL rows, with PostgreSQL's defaults (fsync on: the WAL is
 * flushed as a production server's is), and a database for one app on it. Undefined (and the rows left out, with a note) where
 * PostgreSQL is not installed.
 */
export async function benchPostgres(): Promise<{ server: PostgresServer; url: string } | undefined> {
  if (postgresMissing()) return undefined
  const server = await startPostgres({ durable: true })
  return { server, url: await server.createDatabase() }
}
