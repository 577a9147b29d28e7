import assert from 'node:assert/strict'
import { test } from 'node:test'
import { storedEvent } from '../testing/stored-event'
import type { LinkdeskMessage } from '../contract/message'
import { PostgresAuthStore } from '../store/postgres/auth'
import { PostgresEventStore } from '../store/postgres/events'
import { PostgresLedgerRecords } from '../store/postgres/ledger'
import { PostgresMessageStore } from '../store/postgres/messages'
import { PostgresPollVotes } from '../store/postgres/poll-votes'
import { PostgresSettingsStore } from '../store/postgres/settings'
import { PostgresUploads } from '../store/postgres/uploads'
import { loadWaAuthState } from '../wa/wa-auth-state'
import { InstanceRegistry } from '../instances/instance-registry'
import { joinedClusterNode } from '../testing/cluster-node'
import { eventually } from '../testing/messaging-harness'
import { postgresSuite } from '../testing/postgres-server'

const leaseLost = (error: { details?: { reason?: string } }) => error.details?.reason === 'lease_lost'

const event = storedEvent

const text = (id: string) =>
  ({ id, chat: '15551234567@s.whatsapp.net', type: 'text', text: 'hi' }) as LinkdeskMessage

postgresSuite('writes of a cluster node are fenced', (pool) => {
  test('events, keys and messages of an instance are written only while this node holds it with its token', async () => {
    const cluster = await joinedClusterNode(pool())
    const events = new PostgresEventStore(pool(), cluster.fence)
    const messages = new PostgresMessageStore(pool(), {}, cluster.fence)
    const auth = new PostgresAuthStore(pool(), '/nonexistent', undefined, cluster.fence)
    const count = async (table: string) =>
      Number((await pool().query<{ n: string }>(`SELECT count(*) AS n FROM ${table}`)).rows[0]!.n)
    try {
      // Not held here: refused before anything reaches the database.
      await assert.rejects(events.commit([{ kind: 'event', stored: event('01A', 'I1') }]), leaseLost)
      await assert.rejects(messages.addIfNew('I1', { direction: 'in', message: text('M1') }), leaseLost)
      assert.equal(await count('events'), 0)
      assert.equal(await count('messages'), 0)

      await cluster.adoptNew('I1')
      await events.commit([{ kind: 'event', stored: event('01B', 'I1') }])
      assert.equal(await messages.addIfNew('I1', { direction: 'in', message: text('M2') }), true)
      await auth.forInstance('I1').setKeys({ session: { s: { n: 1 } } })
      await auth.forInstance('I1').committed()

      // Another node took it over (its token moved on): the database refuses this node's next writes.
      await pool().query(`UPDATE instance_owner SET token = token + 1 WHERE instance_id = 'I1'`)
      await assert.rejects(events.commit([{ kind: 'event', stored: event('01C', 'I1') }]), leaseLost)
      await assert.rejects(messages.addIfNew('I1', { direction: 'in', message: text('M3') }), leaseLost)
      await assert.rejects(messages.markRead('I1', ['M2']), leaseLost)
      const keys = auth.forInstance('I1')
      await keys.setKeys({ session: { s: { n: 2 } } })
      await keys.committed()
      await assert.rejects(keys.setKeys({ session: { s: { n: 3 } } }), /earlier write/)
      assert.deepEqual(
        (await pool().query('SELECT id FROM events ORDER BY id')).rows.map(({ id }) => id),
        ['01B'],
      )
      assert.deepEqual((await pool().query('SELECT id, read FROM messages')).rows, [
        { id: 'M2', read: false },
      ])
      assert.equal(await auth.countEntries('I1'), 1, 'the refused key write left the first one')
      // A refused write makes the node check what it still holds, in the background.
      await eventually(
        () => cluster.mayAct('I1'),
        (acts) => !acts,
        'the node noticed and stopped holding it',
      )
    } finally {
      await auth.close()
      await cluster.drain()
    }
  })

  test('new pre-keys are reported written only once durable, so Baileys never uploads keys a node lost', async () => {
    const cluster = await joinedClusterNode(pool())
    const auth = new PostgresAuthStore(pool(), '/nonexistent', undefined, cluster.fence)
    const preKey = (id: number) => ({
      'pre-key': { [id]: { public: Buffer.alloc(32, id), private: Buffer.alloc(32, id + 1) } },
    })
    const stored = async () =>
      (
        await pool().query<{ id: string }>(
          `SELECT id FROM auth_entries WHERE instance_id = 'I6' AND type = 'pre-key' ORDER BY id`,
        )
      ).rows.map(({ id }) => id)
    try {
      await cluster.adoptNew('I6')
      const { state, holdKeyWrites } = loadWaAuthState(auth.forInstance('I6'))
      // Baileys uploads the pre-keys once `set` resolves: by then they are in the database.
      await state.keys.set(preKey(1))
      assert.deepEqual(await stored(), ['1'])
      // While a decryption holds the writes back, `set` does not wait for them (the holder may be its caller:
      // a retry receipt's pre-key is made inside the held decryption); they commit at the release.
      const release = holdKeyWrites()
      await state.keys.set(preKey(2))
      assert.deepEqual(await stored(), ['1'])
      release()
      await auth.forInstance('I6').committed()
      assert.deepEqual(await stored(), ['1', '2'])
      // Another node took the instance over: the refused pre-keys are not reported written, so they are never
      // uploaded for the network to hand out.
      await pool().query(`UPDATE instance_owner SET token = token + 1 WHERE instance_id = 'I6'`)
      await assert.rejects(async () => state.keys.set(preKey(3)), /write of this auth store failed/)
      assert.deepEqual(await stored(), ['1', '2'])
    } finally {
      await auth.close()
      await cluster.drain()
    }
  })

  test('idempotency entries and poll votes of an instance are written only while this node holds it with its token', async () => {
    const cluster = await joinedClusterNode(pool())
    const ledger = new PostgresLedgerRecords(pool(), cluster.fence)
    const votes = new PostgresPollVotes(pool(), cluster.fence)
    const entry = (at: number) => ({ fingerprint: 'f', messageId: 'M1', at })
    const vote = (voter: string) => ({ voter, hashes: ['aa'], at: 1 })
    const rows = async (table: string) =>
      (await pool().query(`SELECT instance_id FROM ${table} ORDER BY instance_id`)).rows
    try {
      await assert.rejects(ledger.put('I2', 'k1', entry(1)), leaseLost)
      await assert.rejects(votes.replace('I2', 'P1', vote('v1')), leaseLost)
      assert.deepEqual(await rows('send_idempotency'), [])
      assert.deepEqual(await rows('poll_votes'), [])

      await cluster.adoptNew('I2')
      await ledger.put('I2', 'k1', entry(1))
      assert.equal((await votes.replace('I2', 'P1', vote('v1'))).length, 1)

      await pool().query(`UPDATE instance_owner SET token = token + 1 WHERE instance_id = 'I2'`)
      await assert.rejects(ledger.put('I2', 'k2', entry(2)), leaseLost)
      await assert.rejects(votes.replace('I2', 'P1', vote('v2')), leaseLost)
      assert.deepEqual((await pool().query('SELECT key FROM send_idempotency')).rows, [{ key: 'k1' }])
      assert.deepEqual((await pool().query('SELECT voter FROM poll_votes')).rows, [{ voter: 'v1' }])
      // A refused write makes the node check what it still holds, in the background.
      await eventually(
        () => cluster.mayAct('I2'),
        (acts) => !acts,
        'the node noticed and stopped holding it',
      )
    } finally {
      await cluster.drain()
    }
  })

  test("an instance's record is written only while this node holds it with its token", async () => {
    const cluster = await joinedClusterNode(pool())
    const registry = new InstanceRegistry(await PostgresSettingsStore.open(pool(), undefined, cluster.fence))
    const stored = async () =>
      (
        await pool().query<{ id: string; record: { name?: string; linked: boolean } }>(
          'SELECT id, record FROM instances',
        )
      ).rows.map(({ id, record }) => ({ id, name: record.name, linked: record.linked }))
    try {
      // A new record is placed, not yet anyone's: its creation is not fenced.
      const { id } = await registry.create({ kind: 'operator' }, 'Sales')
      await assert.rejects(
        registry.update(id, (record) => ({ ...record, name: 'Support' })),
        leaseLost,
      )
      await assert.rejects(registry.setLinked(id, true), leaseLost)
      assert.deepEqual(await stored(), [{ id, name: 'Sales', linked: false }])

      await cluster.adoptNew(id)
      await registry.update(id, (record) => ({ ...record, name: 'Support' }))
      assert.deepEqual(await stored(), [{ id, name: 'Support', linked: false }])

      await pool().query(`UPDATE instance_owner SET token = token + 1 WHERE instance_id = $1`, [id])
      await assert.rejects(registry.setLinked(id, true), leaseLost)
      await assert.rejects(
        registry.setStopped(id, { cause: 'connection_replaced', code: 440, at: 1 }),
        leaseLost,
      )
      await assert.rejects(registry.replace(id), leaseLost)
      assert.deepEqual(await stored(), [{ id, name: 'Support', linked: false }], 'nothing written once lost')
      assert.deepEqual(
        {
          name: registry.find(id)?.name,
          linked: registry.find(id)?.linked,
          stopped: registry.find(id)?.stopped,
        },
        { name: 'Support', linked: false, stopped: undefined },
        'nor changed in memory',
      )
      // A refused write makes the node check what it still holds, in the background.
      await eventually(
        () => cluster.mayAct(id),
        (acts) => !acts,
        'the node noticed and stopped holding it',
      )
    } finally {
      await cluster.drain()
    }
  })

  test("an upload is written only while this node's lease holds", async () => {
    const cluster = await joinedClusterNode(pool())
    const uploads = new PostgresUploads(pool(), cluster.fence)
    const ids = async () =>
      (await pool().query<{ id: string }>('SELECT id FROM uploads')).rows.map(({ id }) => id)
    try {
      const kept = await uploads.save(Buffer.from('first'), 'text/plain')
      assert.deepEqual(await ids(), [kept.id])

      // The lease expired on the database's clock (the node was paused past it): the next upload writes nothing.
      await pool().query(`UPDATE nodes SET expires_at = now() - interval '1 second' WHERE id = 'n1'`)
      await assert.rejects(uploads.save(Buffer.from('second'), 'text/plain'), leaseLost)
      assert.deepEqual(await ids(), [kept.id])
    } finally {
      await cluster.close()
    }
  })

  test('a post under way is marked on the shared outbox only while this node holds the instance', async () => {
    const cluster = await joinedClusterNode(pool())
    const events = new PostgresEventStore(pool(), cluster.fence)
    const entry = {
      eventId: '01E',
      enqueuedAt: 1,
      attempts: 0,
      nextAttemptAt: 0,
      fallback: { url: 'http://127.0.0.1:1', secret: 's' },
    }
    const posting = async () =>
      (await pool().query(`SELECT queue_id, posting FROM webhook_outbox WHERE queue = 'I3'`)).rows
    try {
      await cluster.adoptNew('I3')
      await events.commit([{ kind: 'enqueue', queue: 'I3', queueId: 'Q1', entry }])
      assert.deepEqual(await events.markPosting!('I3', ['Q1']), new Set(), 'a first post')
      assert.deepEqual(await events.markPosting!('I3', ['Q1']), new Set(['Q1']), 'its post never settled')
      await events.commit([{ kind: 'retry', queue: 'I3', queueId: 'Q1', entry: { ...entry, attempts: 1 } }])
      assert.deepEqual(await posting(), [{ queue_id: 'Q1', posting: false }], 'a saved retry settles it')

      await pool().query(`UPDATE instance_owner SET token = token + 1 WHERE instance_id = 'I3'`)
      await assert.rejects(events.markPosting!('I3', ['Q1']), leaseLost)
      assert.deepEqual(await posting(), [{ queue_id: 'Q1', posting: false }], 'nothing marked once lost')
    } finally {
      await cluster.drain()
    }
  })
})
