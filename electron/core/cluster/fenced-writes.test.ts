import assert from 'node:assert/strict'
import { test } from 'node:test'
import { storedEvent } from '../testing/stored-event'
import type { LinkdeskMessage } from '../contract/message'
import { PostgresAuthStore } from '../store/postgres/auth'
import { PostgresEventStore } from '../store/postgres/events'
import { PostgresMessageStore } from '../store/postgres/messages'
import { joinedClusterNode } from '../testing/cluster-node'
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
      assert.equal(cluster.mayAct('I1'), false, 'the node noticed and stopped holding it')
    } finally {
      await auth.close()
      await cluster.drain()
    }
  })
})
