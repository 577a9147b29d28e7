import assert from 'node:assert/strict'
import { test } from 'node:test'
import { Writable } from 'node:stream'
import { setTimeout as sleep } from 'node:timers/promises'
import { createLogger, silentLogger } from '../logger'
import { inTransaction } from '../store/postgres/transaction'
import { postgresSuite } from '../testing/postgres-server'
import { NodeLease, type NodeLeaseOptions } from './node-lease'

const lease = (nodeId: string, extra: Partial<NodeLeaseOptions> = {}): NodeLeaseOptions => ({
  nodeId,
  address: `http://${nodeId}.internal:8686`,
  ttlMs: 400,
  marginMs: 100,
  logger: silentLogger(),
  ...extra,
})

postgresSuite('fenced instance leases', (pool) => {
  test('an instance is taken over only once its owner’s lease expired, with a new token the old owner cannot write with', async () => {
    const a = await NodeLease.join(pool(), lease('a'))
    const b = await NodeLease.join(pool(), lease('b', { ttlMs: 5_000 }))
    const first = await a.acquire('X')
    assert.deepEqual(first, { instanceId: 'X', token: 1 })
    assert.equal(await b.acquire('X'), undefined, 'a live owner keeps it')
    await inTransaction(pool(), (client) => a.fence(client, first!))

    // a stops renewing (a kill, a pause); b keeps its own lease fresh.
    await sleep(450)
    assert.ok(await b.renew())
    const taken = await b.acquire('X')
    assert.deepEqual(taken, { instanceId: 'X', token: 2 })
    await assert.rejects(
      inTransaction(pool(), (client) => a.fence(client, first!)),
      (error: { details?: { reason?: string } }) => error.details?.reason === 'lease_lost',
    )
    assert.equal(await a.renew(), false, 'the expired lease is lost for good, not silently extended')
    assert.equal(a.alive, false)
    await inTransaction(pool(), (client) => b.fence(client, taken!))
    await b.leave()
  })

  test('a takeover waits for a fenced write in progress, and then sees it', async () => {
    const a = await NodeLease.join(pool(), lease('c', { ttlMs: 300, marginMs: 50 }))
    const b = await NodeLease.join(pool(), lease('d', { ttlMs: 5_000 }))
    const fence = (await a.acquire('Y'))!
    await pool().query('CREATE TABLE IF NOT EXISTS lease_probe (instance_id text, n int)')
    let takeover: Promise<unknown> | undefined
    await inTransaction(pool(), async (client) => {
      await a.fence(client, fence)
      await sleep(350) // a's lease expires while its write is in progress
      takeover = b.acquire('Y')
      await sleep(100)
      await client.query('INSERT INTO lease_probe VALUES ($1, 1)', ['Y'])
    })
    assert.deepEqual(await takeover, { instanceId: 'Y', token: fence.token + 1 })
    const { rows } = await pool().query('SELECT n FROM lease_probe WHERE instance_id = $1', ['Y'])
    assert.equal(rows.length, 1, 'the write that held the fence committed before the takeover')
    await b.leave()
  })

  test('a released instance (drain) is taken at once; a node past its local deadline acts on nothing', async () => {
    let clock = 0
    const a = await NodeLease.join(
      pool(),
      lease('e', { ttlMs: 60_000, marginMs: 5_000, monotonic: () => clock }),
    )
    const b = await NodeLease.join(pool(), lease('f', { ttlMs: 60_000 }))
    const fence = (await a.acquire('Z'))!
    await a.release(fence)
    assert.deepEqual(await b.acquire('Z'), { instanceId: 'Z', token: fence.token + 2 })

    // Paused past its local deadline (the database has not expired it yet): it must not act.
    clock = 55_001
    assert.equal(a.alive, false)
    assert.equal(await a.acquire('W'), undefined)
    await assert.rejects(inTransaction(pool(), (client) => a.fence(client, { instanceId: 'Z', token: 9 })))
    // A renewal sent now moves the deadline from its sending time.
    assert.ok(await a.renew())
    assert.equal(a.alive, true)
    assert.deepEqual(await a.acquire('W'), { instanceId: 'W', token: 1 })
    await a.leave()
    assert.equal(a.alive, false)
    assert.deepEqual(await b.acquire('W'), { instanceId: 'W', token: 2 }, 'a node that left is gone at once')
    await b.leave()
  })

  test('a renewal held back by a blocked event loop is logged with how late it was sent', async () => {
    const lines: Array<Record<string, unknown>> = []
    const logs = new Writable({
      write(chunk: Buffer, _encoding, done) {
        for (const line of chunk.toString('utf8').split('\n')) if (line) lines.push(JSON.parse(line))
        done()
      },
    })
    const logger = createLogger('warn', logs)
    // Renewed every second; half the slack the TTL leaves after a renewal and the margin is 750 ms.
    const a = await NodeLease.join(pool(), lease('g', { ttlMs: 3_000, marginMs: 500, logger }))
    let lost = false
    a.start(() => (lost = true))
    // Renewed at 1 s; the one due at 2 s is sent when the loop is free again, at about 2.9 s.
    await sleep(1_100)
    const blockedUntil = Date.now() + 1_800
    while (Date.now() < blockedUntil);
    await sleep(300)
    a.stop()
    const late = lines.find((line) => line.msg === 'lease renewal sent late: the event loop was blocked')
    assert.ok(late, 'the late renewal is logged')
    assert.ok(Number(late.lateMs) >= 750, `by how much (${String(late.lateMs)} ms)`)
    assert.equal(lost, false, 'blocked for less than its TTL, the lease is kept')
    await a.leave()
  })
})
