import assert from 'node:assert/strict'
import { test } from 'node:test'
import { postgresSuite } from '../../testing/postgres-server'
import { resultsAtomically } from './statements'

// Text a user may send, with everything a string literal or a JavaScript replacement pattern gives meaning to.
const AWKWARD = [
  "$'after",
  '$`before',
  '$&match',
  '$$ and $1 and $<name>',
  "it's",
  'back\\slash \\n',
  "E'x'::jsonb; DROP TABLE t; --",
  '𔖆 emoji 👍🏽 and \u0001 control',
]

postgresSuite('statements run together', (pool) => {
  test('rows go in inline exactly as given, whatever their text holds', async () => {
    await pool().query('CREATE TABLE awkward (n int PRIMARY KEY, text text NOT NULL)')
    const rows = AWKWARD.map((text, n) => ({ n, text }))
    const sql = `INSERT INTO awkward (n, text) SELECT n, text FROM jsonb_to_recordset($1::jsonb) AS x(n int, text text)`
    const [inserted, read] = await resultsAtomically(pool(), [
      { sql, rows },
      { sql: `SELECT count(*)::int AS count FROM jsonb_array_elements($1::jsonb)`, rows: AWKWARD },
    ])
    assert.equal(inserted!.rowCount, AWKWARD.length)
    assert.equal(read!.rows[0].count, AWKWARD.length)
    const stored = await pool().query('SELECT text FROM awkward ORDER BY n')
    assert.deepEqual(
      stored.rows.map((row) => row.text),
      AWKWARD,
    )
  })
})
