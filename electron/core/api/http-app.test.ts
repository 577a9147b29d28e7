import assert from 'node:assert/strict'
import { test } from 'node:test'
import pg from 'pg'
import { postgresMissing, startPostgres } from '../testing/postgres-server'
import { toAppError } from './http-app'

const failure = (promise: Promise<unknown>): Promise<unknown> =>
  promise.then(
    () => undefined,
    (error: unknown) => error,
  )

// A request that meets a restarting database answers 503 unavailable (try again), not 500 internal_error: the
// errors are PostgreSQL's own, from a connection its server ended under a query and from a server that is gone.
test(
  'errors of a database out of reach answer 503 unavailable with reason store_unavailable',
  { skip: postgresMissing() },
  async () => {
    const server = await startPostgres()
    const errors: unknown[] = []
    let stopped = false
    try {
      const url = await server.createDatabase()
      const client = new pg.Client({ connectionString: url })
      client.on('error', () => undefined)
      await client.connect()
      const admin = new pg.Client({ connectionString: url })
      await admin.connect()
      const { rows } = await client.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')
      const sleeping = failure(client.query('SELECT pg_sleep(30)'))
      await admin.query('SELECT pg_terminate_backend($1)', [rows[0]!.pid])
      await admin.end()
      errors.push(await sleeping)
      await client.end().catch(() => undefined)
      stopped = true
      server.stop()
      errors.push(await failure(new pg.Client({ connectionString: url }).connect()))
    } finally {
      if (!stopped) server.stop()
    }
    for (const error of errors) {
      assert.ok(error instanceof Error, `an error: ${String(error)}`)
      const answer = toAppError(error)
      assert.equal(answer.status, 503, `${error.message}: ${answer.code}`)
      assert.equal(answer.code, 'unavailable')
      assert.deepEqual(answer.details, { reason: 'store_unavailable' })
    }
    assert.equal(errors.length, 2)
    // Anything else stays an internal error.
    assert.equal(toAppError(new Error('boom')).status, 500)
    assert.equal(toAppError(Object.assign(new Error('duplicate key'), { code: '23505' })).status, 500)
  },
)
