import assert from 'node:assert/strict'
import { test } from 'node:test'
import { setTimeout as sleep } from 'node:timers/promises'
import pg from 'pg'
import { silentLogger } from '../logger'
import { startTestCore } from '../testing/test-core'
import { queriesDuring } from '../testing/postgres-queries'
import { postgresSuite } from '../testing/postgres-server'
import { ADOPTION_CONCURRENCY, Cluster, REBALANCE_BATCH } from './cluster'
import { NodeLease } from './node-lease'

const urlOf = (pool: pg.Pool) => (pool.options as { connectionString: string }).connectionString

const clusterNode = (pool: pg.Pool, nodeId: string, ttlMs = 5_000) =>
  new Cluster({ pool, url: urlOf(pool), nodeId, ttlMs, marginMs: ttlMs / 10, logger: silentLogger() })

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
    const node = clusterNode(pool(), 'parallel')
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

  test('the lease is renewed on time while takeovers hold every connection of the pool', async () => {
    await orphans(pool(), 'L', ADOPTION_CONCURRENCY * 2)
    // A small pool, each takeover holding a connection of it far longer than the lease's TTL in all.
    const shared = new pg.Pool({ connectionString: urlOf(pool()), max: 2 })
    const node = clusterNode(shared, 'renewing', 3_000)
    let joined = false
    let lapsed = 0
    const watch = setInterval(() => {
      if (node.alive) joined = true
      else if (joined) lapsed += 1
    }, 20)
    try {
      await node.join('http://127.0.0.1:1', {
        acquired: async () => {
          await shared.query('SELECT pg_sleep(1.5)')
        },
        parted: () => undefined,
      })
      assert.ok(node.held().length >= ADOPTION_CONCURRENCY * 2, 'the takeovers ran')
      assert.equal(lapsed, 0, 'the lease never passed its local deadline')
      assert.equal(node.counts.lost, 0, 'nothing was lost to an expired lease')
    } finally {
      clearInterval(watch)
      await node.drain()
      await shared.end()
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

postgresSuite('handing instances over to a node that joins', (pool) => {
  test('a loaded node hands over its excess over a fair share in batches, never an unsettled account', async () => {
    const total = 2 * REBALANCE_BATCH + 20
    const ids = await orphans(pool(), 'B', total)
    // Accounts in their first login (or mid-link) here: they stay where they are.
    const unsettled = new Set(ids.filter((_, n) => n % 7 === 3))
    const donor = clusterNode(pool(), 'donor', 1_500)
    const joiner = clusterNode(pool(), 'joiner', 1_500)
    const loads = async () => {
      const { rows } = await pool().query<{ node_id: string; instance_id: string }>(
        'SELECT node_id, instance_id FROM instance_owner',
      )
      return {
        donor: rows.filter(({ node_id: node }) => node === 'donor').map(({ instance_id: id }) => id),
        joiner: rows.filter(({ node_id: node }) => node === 'joiner').map(({ instance_id: id }) => id),
      }
    }
    try {
      await donor.join('http://127.0.0.1:1', {
        acquired: () => undefined,
        parted: () => undefined,
        movable: (instanceId) => !unsettled.has(instanceId),
      })
      assert.equal((await loads()).donor.length, total)
      const fair = total / 2
      const sent = await queriesDuring(new URL(urlOf(pool())).pathname.slice(1), async () => {
        await joiner.join('http://127.0.0.1:2', { acquired: () => undefined, parted: () => undefined })
        const deadline = Date.now() + 120_000
        while ((await loads()).joiner.length < fair) {
          assert.ok(Date.now() < deadline, 'the joining node holds a fair share within two minutes')
          await sleep(50)
        }
        // Balanced: the next ticks hand nothing more over.
        await sleep(2_000)
      })
      const now = await loads()
      assert.equal(now.joiner.length, fair, `the joining node holds ${now.joiner.length}`)
      assert.equal(now.donor.length, fair)
      assert.deepEqual(
        now.joiner.filter((id) => unsettled.has(id)),
        [],
        'no account in its first login moved',
      )
      // Each batch is one release announcement: the excess (fair) in batches of at most REBALANCE_BATCH.
      const batches = sent.filter(
        ({ text, values }) => text.includes('pg_notify') && values[1] === 'released donor',
      )
      assert.equal(batches.length, Math.ceil(fair / REBALANCE_BATCH), `${batches.length} hand-overs`)
    } finally {
      await joiner.drain()
      await donor.drain()
    }
  })
})

for (const how of ['its next renewal', 'a refused write'] as const) {
  postgresSuite(`a node whose lease expired under it, finding out by ${how}`, (pool) => {
    test('joins again and keeps, without restarting them, the instances no peer took', async () => {
      const ids = await orphans(pool(), 'E', 6)
      const acquired: string[] = []
      const parted: Array<[string, string]> = []
      // A long TTL leaves the refused write to find out first (renewals every 4 s).
      const node = clusterNode(pool(), 'stalled', how === 'a refused write' ? 12_000 : 1_500)
      let peer: NodeLease | undefined
      try {
        await node.join('http://127.0.0.1:1', {
          acquired: (instanceId) => void acquired.push(instanceId),
          parted: (instanceId, why) => void parted.push([instanceId, why]),
          movable: () => false,
        })
        assert.deepEqual(acquired.sort(), ids)
        peer = await NodeLease.join(pool(), {
          nodeId: 'peer',
          address: 'http://127.0.0.1:2',
          ttlMs: 60_000,
          marginMs: 1_000,
          logger: silentLogger(),
        })
        // The node's lease expires on the database's clock (a stall of the whole machine), and a peer takes one
        // of its instances before the node finds out.
        await pool().query(`UPDATE nodes SET expires_at = now() - interval '1 second' WHERE id = $1`, [
          node.nodeId,
        ])
        assert.ok(await peer.acquire(ids[0]!), 'the peer took an instance of the expired node')
        // A write for another of its instances refused by the database (its lease is no longer live there).
        if (how === 'a refused write') node.fence.refused(ids[1]!)
        const deadline = Date.now() + 10_000
        while (node.held().length !== ids.length - 1 || !node.alive || parted.length < 1) {
          assert.ok(Date.now() < deadline, `the node joined again: holds ${node.held().length}`)
          await sleep(50)
        }
        assert.deepEqual(parted[0], [ids[0], 'lost'], 'the instance the peer took was stopped')
        if (how === 'a refused write') {
          // The instance whose write was refused starts again from what is stored; nothing else does.
          while (acquired.length < ids.length + 1) {
            assert.ok(Date.now() < deadline, 'the refused instance started again')
            await sleep(50)
          }
          assert.deepEqual(parted.slice(1), [[ids[1], 'released']])
          assert.deepEqual(acquired.slice(ids.length), [ids[1]])
        } else {
          assert.equal(parted.length, 1, 'only the instance the peer took was stopped')
          assert.equal(acquired.length, ids.length, 'nothing was started again')
        }
        for (const id of ids.slice(1)) assert.equal(await node.stillOwner(id), true, `${id} still held here`)
        assert.equal(node.counts.lost, 1)
      } finally {
        await node.drain()
        await peer?.leave()
      }
    })
  })
}
