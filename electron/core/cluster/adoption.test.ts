import assert from 'node:assert/strict'
import { test } from 'node:test'
import { setTimeout as sleep } from 'node:timers/promises'
import type pg from 'pg'
import { silentLogger } from '../logger'
import { startTestCore } from '../testing/test-core'
import { queriesDuring } from '../testing/postgres-queries'
import { postgresSuite } from '../testing/postgres-server'
import { ADOPTION_CONCURRENCY, Cluster } from './cluster'

const urlOf = (pool: pg.Pool) => (pool.options as { connectionString: string }).connectionString

/** `count` linked instances (ids with `prefix`) held by a node whose lease expired: orphans to take over. */
async function orphans(pool: pg.Pool, prefix: string, count: number): Promise<string[]> {
  const ids = Array.from({ length: count }, (_, n) => `${prefix}${String(n).padStart(3, '0')}`)
  await pool.query(
    `INSERT INTO nodes (id, address, expires_at) VALUES ('gone', 'http://127.0.0.1:1', now() - interval '1 minute')
     ON CONFLICT (id) DO NOTHING`,
  )
  for (const id of ids) {
    const record = {
      id,
      ownerTokenId: null,
      tokens: [],
      createdAt: Date.now(),
      linked: true,
      webhook: { url: null, enable: false, secret: 'whsec_test' },
    }
    await pool.query('INSERT INTO instances (id, record) VALUES ($1, $2)', [id, JSON.stringify(record)])
    await pool.query(`INSERT INTO instance_owner (instance_id, node_id, token) VALUES ($1, 'gone', 1)`, [id])
  }
  return ids
}

postgresSuite('taking over a dead node’s instances', (pool) => {
  test(`a node takes the orphans over ${ADOPTION_CONCURRENCY} at once, never more`, async () => {
    const ids = await orphans(pool(), 'P', ADOPTION_CONCURRENCY * 3)
    let running = 0
    let most = 0
    const acquired: string[] = []
    const node = new Cluster({
      pool: pool(),
      url: urlOf(pool()),
      nodeId: 'parallel',
      ttlMs: 5_000,
      marginMs: 500,
      logger: silentLogger(),
    })
    try {
      await node.join('http://127.0.0.1:1', {
        acquired: async (instanceId) => {
          running += 1
          most = Math.max(most, running)
          // An adoption's reads take a while: the others go on meanwhile.
          await sleep(150)
          acquired.push(instanceId)
          running -= 1
        },
        parted: () => undefined,
      })
      assert.deepEqual(acquired.sort(), ids, 'every orphan taken over by the first tick')
      assert.equal(most, ADOPTION_CONCURRENCY, 'adoptions ran side by side, up to the bound')
    } finally {
      await node.drain()
    }
  })

  test('each adoption reads its own instance record and outbox queues, not the whole table', async () => {
    const ids = await orphans(pool(), 'R', 20)
    // Tables read whole: every instance record, every outbox queue (the open of the stores does it once).
    const wholeInstances = /FROM instances\s*$/
    const wholeOutbox = /SELECT DISTINCT queue FROM webhook_outbox\s*$/
    let node: Awaited<ReturnType<typeof startTestCore>> | undefined
    const sent = await queriesDuring(new URL(urlOf(pool())).pathname.slice(1), async () => {
      // The core joins (and takes its share of the orphans) before it answers.
      node = await startTestCore({
        store: urlOf(pool()),
        nodeId: 'reader',
        leaseTtlMs: 5_000,
        sandbox: true,
      })
    })
    try {
      const { rows } = await pool().query<{ instance_id: string }>(
        `SELECT instance_id FROM instance_owner WHERE node_id = 'reader' AND instance_id = ANY($1)`,
        [ids],
      )
      assert.equal(rows.length, ids.length, 'every orphan was taken over at the join')
      const whole = sent.filter(({ text }) => wholeInstances.test(text.trim()))
      assert.equal(
        whole.length,
        1,
        `the instances table was read whole ${whole.length} times (once: the open)`,
      )
      const outbox = sent.filter(({ text }) => wholeOutbox.test(text.trim()))
      assert.equal(outbox.length, 1, `the outbox was scanned whole ${outbox.length} times (once: the start)`)
      const ownReads = sent.filter(({ text }) => /FROM instances WHERE id = \$1/.test(text))
      assert.ok(ownReads.length >= ids.length, 'each adoption read its own record again')
    } finally {
      await node?.stop()
    }
  })
})
