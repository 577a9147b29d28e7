import assert from 'node:assert/strict'
import { test } from 'node:test'
import { storedEvent } from '../testing/stored-event'
import type { DeliveryAttempt, EventStore, OutboxEntry, StoredEvent } from './event-store'
import { LmdbEventStore } from './lmdb/events'
import { PostgresEventStore } from './postgres/events'
import { eachBackend, openOn, type PerBackend } from '../testing/backends'

const eventStore: PerBackend<EventStore> = {
  lmdb: ({ db }) => new LmdbEventStore(db),
  postgres: ({ pool }) => new PostgresEventStore(pool),
}

const everyone = { visible: () => true }

function pending(id: string, instanceId = 'A'): StoredEvent {
  const stored = storedEvent(id, instanceId)
  return { ...stored, delivery: { ...stored.delivery, status: 'pending' } }
}

function attempt(id: string, eventId: string, outcome: DeliveryAttempt['outcome']): DeliveryAttempt {
  return {
    delivery_id: id,
    event_id: eventId,
    instance_id: 'A',
    webhook_id: null,
    event: 'message.received',
    attempt: 1,
    attempted_at: '2026-01-01T00:00:00.000Z',
    url: 'http://127.0.0.1:9/hook',
    status_code: outcome === 'delivered' ? 200 : 500,
    latency_ms: 3,
    outcome,
    error: outcome === 'delivered' ? null : 'HTTP 500',
  }
}

function entry(eventId: string, attempts = 0): OutboxEntry {
  return {
    eventId,
    enqueuedAt: 1_000,
    attempts,
    nextAttemptAt: 1_000 + attempts,
    fallback: { url: 'http://127.0.0.1:9/hook', secret: 's' },
  }
}

const ids = (items: ReadonlyArray<{ envelope: { event_id: string } }>) =>
  items.map((s) => s.envelope.event_id)

eachBackend((backend) => {
  const name = backend.kind

  test(`${name}: committed events read back by id, with the message each announced, and survive a restart`, async () => {
    const storage = await backend.fresh()
    const store = openOn(storage, eventStore)
    assert.equal(await store.lastEventId(), undefined)
    await store.commit([
      { kind: 'event', stored: storedEvent('01A', 'A', { id: 'm1' }), messageId: 'm1' },
      { kind: 'event', stored: storedEvent('01B', 'B') },
    ])
    const restarted = openOn(await backend.restart(storage), eventStore)
    assert.deepEqual(await restarted.event('01A'), storedEvent('01A', 'A', { id: 'm1' }))
    assert.equal(await restarted.event('01Z'), undefined)
    assert.deepEqual([...(await restarted.existing(['01A', '01B', '01Z']))].sort(), ['01A', '01B'])
    assert.equal(await restarted.eventOfMessage('A', 'm1'), '01A')
    assert.equal(await restarted.eventOfMessage('B', 'm1'), undefined, 'per instance')
    assert.equal(await restarted.lastEventId(), '01B')
  })

  test(`${name}: pages of events: either order, a cursor, filters by instance, event and visibility`, async () => {
    const store = openOn(await backend.fresh(), eventStore)
    await store.commit(
      ['01A', '01B', '01C', '01D'].map((id, n) => ({
        kind: 'event',
        stored: storedEvent(id, n % 2 ? 'B' : 'A'),
      })),
    )
    const first = await store.events(everyone, { limit: 3, order: 'asc' })
    assert.deepEqual(ids(first.items), ['01A', '01B', '01C'])
    assert.equal(first.nextCursor, '01C')
    const rest = await store.events(everyone, { limit: 3, order: 'asc', cursor: '01C' })
    assert.deepEqual(ids(rest.items), ['01D'])
    assert.equal(rest.nextCursor, null)
    assert.deepEqual(ids((await store.events(everyone, { limit: 10, order: 'desc' })).items), [
      '01D',
      '01C',
      '01B',
      '01A',
    ])
    assert.deepEqual(
      ids((await store.events({ ...everyone, instanceId: 'B' }, { limit: 10, order: 'asc' })).items),
      ['01B', '01D'],
    )
    assert.deepEqual(
      (await store.events({ ...everyone, event: 'message.sent' }, { limit: 10, order: 'asc' })).items,
      [],
    )
    assert.deepEqual((await store.events({ visible: () => false }, { limit: 10, order: 'asc' })).items, [])
  })

  test(`${name}: a delivery summary replaces the event's, and events are found by their delivery status`, async () => {
    const store = openOn(await backend.fresh(), eventStore)
    await store.commit([
      { kind: 'event', stored: pending('01A') },
      { kind: 'event', stored: pending('01B') },
      { kind: 'event', stored: storedEvent('01C') },
    ])
    assert.deepEqual(await store.idsWithStatus('A', 'pending'), ['01A', '01B'])
    const delivered = {
      status: 'delivered' as const,
      attempts: 1,
      last_attempt_at: '2026-01-01T00:00:00.000Z',
      last_status_code: 200,
      last_error: null,
    }
    await store.commit([{ kind: 'delivery', instanceId: 'A', eventId: '01A', delivery: delivered }])
    assert.deepEqual((await store.event('01A'))?.delivery, delivered)
    assert.deepEqual(await store.idsWithStatus('A', 'pending'), ['01B'])
    assert.deepEqual(await store.idsWithStatus('A', 'delivered'), ['01A'])
    assert.deepEqual(await store.idsWithStatus('B', 'pending'), [])
  })

  test(`${name}: the outbox keeps one ordered queue per webhook until each entry leaves it`, async () => {
    const store = openOn(await backend.fresh(), eventStore)
    await store.commit([
      { kind: 'event', stored: pending('01A') },
      { kind: 'event', stored: pending('01B') },
      { kind: 'enqueue', queue: 'A', queueId: '01A', entry: entry('01A') },
      { kind: 'enqueue', queue: 'A', queueId: '01B', entry: entry('01B') },
      { kind: 'enqueue', queue: 'webhook:wh_1', queueId: '01A', entry: entry('01A') },
      { kind: 'enqueue', queue: 'webhook:wh_2@A', queueId: '01A', entry: entry('01A') },
      { kind: 'enqueue', queue: 'webhook:wh_2@AB', queueId: '01B', entry: entry('01B') },
    ])
    assert.equal(await store.queueDepth(), 5)
    assert.deepEqual((await store.queues()).sort(), [
      'A',
      'webhook:wh_1',
      'webhook:wh_2@A',
      'webhook:wh_2@AB',
    ])
    // One instance's queues: its own webhook's and its share of an added one's, no other instance's.
    assert.deepEqual((await store.queues('A')).sort(), ['A', 'webhook:wh_2@A'])
    assert.deepEqual(await store.queues('AB'), ['webhook:wh_2@AB'])
    assert.equal(await store.queueDepth('A'), 3)
    assert.equal(await store.queueDepth('AB'), 1)
    await store.commit([
      { kind: 'dequeue', queue: 'webhook:wh_2@A', queueId: '01A' },
      { kind: 'dequeue', queue: 'webhook:wh_2@AB', queueId: '01B' },
    ])
    assert.deepEqual(await store.queuedAfter('A', '', 10), [
      { queueId: '01A', entry: entry('01A') },
      { queueId: '01B', entry: entry('01B') },
    ])
    assert.deepEqual(await store.queuedAfter('A', '01A', 10), [{ queueId: '01B', entry: entry('01B') }])
    assert.deepEqual(await store.queuedAfter('A', '', 1), [{ queueId: '01A', entry: entry('01A') }])
    await store.commit([{ kind: 'retry', queue: 'A', queueId: '01A', entry: entry('01A', 2) }])
    assert.deepEqual(await store.queued('A', '01A'), entry('01A', 2))
    await store.commit([
      { kind: 'dequeue', queue: 'A', queueId: '01A' },
      { kind: 'dequeue', queue: 'webhook:wh_1', queueId: '01A' },
    ])
    assert.equal(await store.queued('A', '01A'), undefined)
    assert.deepEqual(await store.queues(), ['A'])
    assert.equal(await store.queueDepth(), 1)
  })

  test(`${name}: delivery attempts page by event, instance, webhook and outcome; the newest id counts them`, async () => {
    const store = openOn(await backend.fresh(), eventStore)
    await store.commit([
      { kind: 'event', stored: pending('01A') },
      { kind: 'attempt', attempt: attempt('01B', '01A', 'retrying'), owner: null },
      { kind: 'attempt', attempt: attempt('01C', '01A', 'delivered'), owner: 'token-1' },
    ])
    const all = await store.deliveries(everyone, { limit: 10, order: 'asc' })
    assert.deepEqual(all.items, [attempt('01B', '01A', 'retrying'), attempt('01C', '01A', 'delivered')])
    const byEvent = await store.deliveries(
      { ...everyone, eventId: '01A', outcome: 'delivered' },
      { limit: 10, order: 'desc' },
    )
    assert.deepEqual(
      byEvent.items.map((a) => a.delivery_id),
      ['01C'],
    )
    assert.deepEqual(
      (await store.deliveries({ ...everyone, instanceId: 'B' }, { limit: 10, order: 'asc' })).items,
      [],
    )
    assert.deepEqual(
      (await store.deliveries({ ...everyone, webhookId: 'wh_1' }, { limit: 10, order: 'asc' })).items,
      [],
    )
    const mine = await store.deliveries(
      { visible: (owner) => owner === 'token-1' },
      { limit: 10, order: 'asc' },
    )
    assert.deepEqual(
      mine.items.map((a) => a.delivery_id),
      ['01C'],
    )
    assert.equal(await store.lastEventId(), '01A')
    assert.equal(await store.lastId(), '01C')
  })

  test(`${name}: the sweep removes old events and attempts, keeps those waiting for delivery, and trims to the maxima`, async () => {
    const store = openOn(await backend.fresh(), eventStore)
    await store.commit([
      { kind: 'event', stored: storedEvent('01A', 'A', { id: 'm1' }), messageId: 'm1' },
      { kind: 'event', stored: pending('01B') },
      { kind: 'event', stored: storedEvent('01C') },
      { kind: 'event', stored: storedEvent('01E') },
      { kind: 'event', stored: storedEvent('01F') },
      { kind: 'attempt', attempt: attempt('01D', '01B', 'retrying'), owner: null },
      { kind: 'attempt', attempt: attempt('01G', '01B', 'retrying'), owner: null },
    ])
    assert.deepEqual(await store.sweep('01D', { events: 100, deliveries: 100 }), { events: 2, deliveries: 0 })
    assert.deepEqual([...(await store.existing(['01A', '01B', '01C', '01E', '01F']))].sort(), [
      '01B',
      '01E',
      '01F',
    ])
    assert.equal(await store.eventOfMessage('A', 'm1'), undefined, 'the message index goes with its event')
    assert.deepEqual(await store.sweep('01A', { events: 2, deliveries: 1 }), { events: 1, deliveries: 1 })
    assert.deepEqual([...(await store.existing(['01B', '01E', '01F']))].sort(), ['01B', '01F'])
    assert.deepEqual(
      (await store.deliveries(everyone, { limit: 10, order: 'asc' })).items.map((a) => a.delivery_id),
      ['01G'],
    )
  })
})
