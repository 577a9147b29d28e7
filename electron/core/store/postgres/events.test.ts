import assert from 'node:assert/strict'
import { test } from 'node:test'
import { storedEvent } from '../../testing/stored-event'
import { postgresSuite } from '../../testing/postgres-server'
import { PostgresEventStore } from './events'

const event = (id: string, instanceId = 'A') => storedEvent(id, instanceId, { id: `m-${id}` })

postgresSuite('the shared event log in commit order', (pool) => {
  test('an event another writer commits later with a smaller id is not passed over, and comes in commit order', async () => {
    const store = new PostgresEventStore(pool())
    await store.commit([{ kind: 'event', stored: event('01A') }])
    const start = await store.positionOf()
    // A slow writer opens its transaction first and inserts the smaller id; a fast one commits a larger id.
    const slow = await pool().connect()
    try {
      await slow.query('BEGIN')
      await slow.query(
        `INSERT INTO events (id, instance_id, event, owner, envelope, delivery, status)
         VALUES ('01B', 'A', 'message.received', NULL, $1, $2, 'skipped')`,
        [JSON.stringify(event('01B').envelope), JSON.stringify(event('01B').delivery)],
      )
      await store.commit([{ kind: 'event', stored: event('01C') }])
      const early = await store.follow({}, start, 100)
      assert.deepEqual(early.items, [], 'nothing past a transaction still running is read')
      assert.equal(early.done, true)
      await slow.query('COMMIT')
    } finally {
      slow.release()
    }
    const page = await store.follow({}, start, 100)
    assert.deepEqual(
      page.items.map(({ stored }) => stored.envelope.event_id),
      ['01B', '01C'],
      'the smaller id first: its transaction began first',
    )
    assert.deepEqual(
      page.items,
      [...page.items].sort((a, b) => (a.position < b.position ? -1 : 1)),
    )
    const after = await store.follow({}, page.position, 100)
    assert.deepEqual(after.items, [], 'read once')

    // A client resuming after 01B (its Last-Event-ID) gets 01C only; filters apply.
    const resumed = await store.follow({}, await store.positionOf('01B'), 100)
    assert.deepEqual(
      resumed.items.map(({ stored }) => stored.envelope.event_id),
      ['01C'],
    )
    await store.commit([{ kind: 'event', stored: event('01D', 'B') }])
    const onlyB = await store.follow({ instanceId: 'B' }, start, 100)
    assert.deepEqual(
      onlyB.items.map(({ stored }) => stored.envelope.event_id),
      ['01D'],
    )
    const paged = await store.follow({}, start, 1)
    assert.equal(paged.done, false)
    assert.equal(paged.items.length, 1)
  })
})
