import assert from 'node:assert/strict'
import { test } from 'node:test'
import { createIdFactory, idFloorAt, idTime, isEventId } from './event-id'

test('ids sort in the order they were made, within one millisecond and when the clock steps back', () => {
  let now = 1_700_000_000_000
  const next = createIdFactory(() => now)
  const ids = [next(), next(), next()]
  now -= 5_000
  ids.push(next())
  now += 10_000
  ids.push(next())
  assert.deepEqual([...ids].sort(), ids)
  assert.equal(new Set(ids).size, ids.length)
  assert.ok(ids.every(isEventId))
  assert.equal(idTime(ids[0]!), 1_700_000_000_000)
})

test('a factory started after a stored id continues above it', () => {
  const stored = createIdFactory(() => 2_000_000_000_000)()
  const next = createIdFactory(() => 1_000_000_000_000, stored)
  assert.ok(next() > stored)
})

test('the floor of a millisecond sorts below every id of that millisecond and above earlier ones', () => {
  const ms = 1_700_000_000_123
  const id = createIdFactory(() => ms)()
  const earlier = createIdFactory(() => ms - 1)()
  assert.ok(idFloorAt(ms) <= id)
  assert.ok(idFloorAt(ms) > earlier)
  assert.equal(isEventId('not-an-id'), false)
})
