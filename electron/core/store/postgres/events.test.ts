import assert from 'node:assert/strict'
import { test } from 'node:test'
import { storedEvent } from '../../testing/stored-event'
import { postgresSuite } from '../../testing/postgres-server'
import { PostgresEventStore } from './events'
import { eventFixture } from '../../testing/event-fixture'
import type pg from 'pg'

/** The pool, with the texts of the queries sent through it kept in `sent` (each one round trip). */
function watched(pool: pg.Pool): { pool: pg.Pool; sent: string[] } {
  const sent: string[] = []
  const query = (...args: unknown[]) => {
    sent.push(String((args[0] as { text?: string }).text ?? args[0]))
    return (pool.query as (...a: unknown[]) => unknown)(...args)
  }
  return {
    pool: new Proxy(pool, { get: (target, key) => (key === 'query' ? query : Reflect.get(target, key)) }),
    sent,
  }
}

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

postgresSuite("a message id claimed in its event's commit", (pool) => {
  test('announcing a message takes one round trip; a copy an earlier run announced commits nothing and resolves as announced', async () => {
    const first = watched(pool())
    const firstStore = new PostgresEventStore(first.pool)
    const run = await eventFixture(undefined, undefined, {
      store: firstStore,
      sharedLog: firstStore,
      durability: 'commit',
    })
    run.addInstance('I', null)
    const touching = () => first.sent.filter((text) => text.includes('event_messages'))
    const announced = await run.service.emitForMessage('I', 'M1', 'message.received', { n: 1 })
    assert.ok(announced)
    assert.equal(touching().length, 1, 'the claim and the event in one query, no lookup before it')
    // Messages arriving together share a commit.
    const together = await Promise.all(
      ['M2', 'M3', 'M4'].map((id) => run.service.emitForMessage('I', id, 'message.received', {})),
    )
    assert.ok(together.every(Boolean))
    assert.ok(touching().length <= 3, `${touching().length} queries for the first and three together`)
    await run.close()

    // The next run (after a kill: nothing in memory) gets the copies the network sends again.
    const second = watched(pool())
    const secondStore = new PostgresEventStore(second.pool)
    const restarted = await eventFixture(undefined, undefined, {
      store: secondStore,
      sharedLog: secondStore,
      durability: 'commit',
    })
    restarted.addInstance('I', null)
    const [copy, fresh] = await Promise.all([
      restarted.service.emitForMessage('I', 'M1', 'message.received', { n: 1 }),
      restarted.service.emitForMessage('I', 'M5', 'message.received', {}),
    ])
    assert.equal(copy, undefined, 'M1 was announced by the earlier run')
    assert.ok(fresh)
    assert.equal(
      await restarted.service.emitForMessage('I', 'M1', 'message.received', {}),
      undefined,
      'known now without asking',
    )
    const rows = await pool().query<{ message_id: string; event_id: string }>(
      'SELECT message_id, event_id FROM event_messages ORDER BY message_id',
    )
    assert.deepEqual(
      rows.rows.map(({ message_id }) => message_id),
      ['M1', 'M2', 'M3', 'M4', 'M5'],
    )
    assert.equal(rows.rows[0]!.event_id, announced.event_id, 'one event per message id')
    const events = await pool().query<{ id: string }>('SELECT id FROM events ORDER BY id')
    assert.deepEqual(
      events.rows.map(({ id }) => id).sort(),
      rows.rows.map(({ event_id }) => event_id).sort(),
      'no event without its message id',
    )
    await restarted.close()
  })
})
