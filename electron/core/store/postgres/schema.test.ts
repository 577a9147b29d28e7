import assert from 'node:assert/strict'
import { readdirSync } from 'node:fs'
import { after, before, describe, test } from 'node:test'
import pg from 'pg'
import { silentLogger } from '../../logger'
import { postgresMissing, type PostgresServer, startPostgres } from '../../testing/postgres-server'
import { migrate } from './schema'

describe('postgres schema migrations', { skip: postgresMissing() }, () => {
  let server: PostgresServer
  before(async () => {
    server = await startPostgres()
  })
  after(() => server?.stop())

  test('nodes migrating a fresh database at once wait for each other and all come up, the schema applied once', async () => {
    const url = await server.createDatabase()
    const pools = [1, 2, 3].map(() => new pg.Pool({ connectionString: url, max: 2 }))
    try {
      const results = await Promise.allSettled(pools.map((pool) => migrate(pool, silentLogger())))
      assert.deepEqual(
        results.flatMap((result) => (result.status === 'rejected' ? [String(result.reason)] : [])),
        [],
      )
      const files = readdirSync(new URL('./migrations', import.meta.url)).filter((name) =>
        name.endsWith('.sql'),
      )
      const { rows } = await pools[0]!.query<{ name: string }>(
        'SELECT name FROM linkdesk_migrations ORDER BY id',
      )
      assert.deepEqual(
        rows.map(({ name }) => name),
        files.sort().map((name) => name.replace(/\.sql$/, '')),
      )
    } finally {
      await Promise.all(pools.map((pool) => pool.end()))
    }
  })
})
