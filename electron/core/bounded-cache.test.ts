import assert from 'node:assert/strict'
import { test } from 'node:test'
import { boundedCache } from './bounded-cache'
import { retryCounterCache } from './wa/wa-session'

test('a bounded cache drops its least recently used entry past its size, and any entry past its age', () => {
  let now = 0
  const cache = boundedCache<string, number>({ max: 2, ttlMs: 1000 }, () => now)
  cache.set('a', 1)
  cache.set('b', 2)
  assert.equal(cache.get('a'), 1)
  cache.set('c', 3)
  assert.deepEqual([cache.has('a'), cache.has('b'), cache.has('c')], [true, false, true])
  now = 999
  assert.equal(cache.get('c'), 3)
  now = 1001
  assert.equal(cache.get('a'), undefined)
  assert.equal(cache.get('c'), undefined)
})

test("the retry counter speaks Baileys' cache interface", () => {
  const counter = retryCounterCache()
  counter.set('m1', 1)
  counter.set('m2', 2)
  assert.equal(counter.get<number>('m1'), 1)
  counter.del('m1')
  assert.equal(counter.get('m1'), undefined)
  counter.flushAll()
  assert.equal(counter.get('m2'), undefined)
})

test('an empty cache costs little, whatever its bound: caches come per account', () => {
  const before = process.memoryUsage().heapUsed
  const caches = Array.from({ length: 200 }, () =>
    boundedCache<string, number>({ max: 10_000, ttlMs: 60_000 }),
  )
  const grown = process.memoryUsage().heapUsed - before
  // Slots allocated up front for 10,000 entries with times to live would be ~0.35 MB a cache, 70 MB here.
  assert.ok(grown < 10 * 2 ** 20, `200 empty caches took ${(grown / 2 ** 20).toFixed(1)} MB`)
  assert.equal(caches.length, 200)
})
