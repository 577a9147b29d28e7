import assert from 'node:assert/strict'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { test } from 'node:test'
import type pg from 'pg'
import { Cluster } from '../cluster/cluster'
import { silentLogger } from '../logger'
import { PostgresEventStore } from '../store/postgres/events'
import type { InstanceRecord } from '../store/settings-store'
import { FAST_EVENT_SETTINGS } from '../testing/event-fixture'
import { eventually } from '../testing/messaging-harness'
import { postgresSuite } from '../testing/postgres-server'
import { WebhookReceiver } from '../testing/webhook-receiver'
import { EventService } from './event-service'

/** A cluster node with its event service on the shared database, delivering X's webhook to `url`. */
async function node(pool: pg.Pool, nodeId: string, url: string) {
  const connectionString = (pool.options as { connectionString: string }).connectionString
  const cluster = new Cluster({
    pool,
    url: connectionString,
    nodeId,
    ttlMs: 5_000,
    marginMs: 500,
    logger: silentLogger(),
  })
  const dataDir = mkdtempSync(join(tmpdir(), `linkdesk-${nodeId}-`))
  const record = {
    id: 'X',
    ownerTokenId: null,
    tokens: [],
    createdAt: 0,
    linked: false,
    webhook: { url, enable: true, secret: 'whsec_gauge' },
  } as InstanceRecord
  const service = await EventService.open({
    store: new PostgresEventStore(pool, cluster.fence),
    durability: 'commit',
    dataDir,
    instances: { find: (id) => (id === 'X' ? record : undefined), update: async () => record },
    settings: FAST_EVENT_SETTINGS,
    logger: silentLogger(),
    coordinator: cluster,
  })
  await cluster.join('http://127.0.0.1:1', {
    acquired: (instanceId) => service.adopt(instanceId),
    parted: async (instanceId) => {
      await service.release(instanceId)
    },
  })
  await service.start()
  return {
    cluster,
    service,
    close: async () => {
      await cluster.drain()
      await service.close()
      rmSync(dataDir, { recursive: true, force: true })
    },
  }
}

postgresSuite('the outbox-depth gauge in a cluster', (pool) => {
  test('each node counts the entries of the instances it delivers: taken over, delivered and let go, never below zero', async () => {
    let accepting = false
    const receiver = await WebhookReceiver.start(() => ({ status: accepting ? 200 : 503 }))
    const first = await node(pool(), 'g1', receiver.url)
    const second = await node(pool(), 'g2', receiver.url)
    try {
      await first.cluster.adoptNew('X')
      // Queued on the first node after the second one opened: the second never saw them enqueued.
      for (let n = 0; n < 3; n += 1) first.service.emit('X', 'message.received', { n })
      await first.service.durable()
      await receiver.until(() => receiver.received.length > 0, 30_000)
      assert.equal(first.service.outboxDepth, 3)
      assert.equal(second.service.outboxDepth, 0)

      // The first node lets X go; the second takes it over and delivers what its first owner queued.
      await first.close()
      assert.equal(first.service.outboxDepth, 0, 'what it let go is not counted by the node that let it go')
      accepting = true
      await second.cluster.adoptNew('X')
      await receiver.until(() => receiver.accepted().length >= 3, 30_000)
      await eventually(
        () => second.service.outboxDepth,
        (depth) => depth === 0,
        'the second node counts its deliveries from what it took over',
        30_000,
      )
    } finally {
      await second.close()
      await receiver.close()
    }
  })
})
