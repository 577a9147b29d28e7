import assert from 'node:assert/strict'
import { test } from 'node:test'
import { BoundedCache } from './bounded-cache'

test('evicts the least recently used entries past the entry bound', () => {
  const cache = new BoundedCache<string, number>(2, 100)
  cache.set('a', 1, 1)
  cache.set('b', 2, 1)
  assert.equal(cache.get('a'), 1)
  cache.set('c', 3, 1)
  assert.equal(cache.has('b'), false)
  assert.equal(cache.get('a'), 1)
  assert.equal(cache.get('c'), 3)
})

test('evicts past the weight bound, never keeps an entry heavier than it, and frees weight on delete', () => {
  const cache = new BoundedCache<string, number>(10, 10)
  cache.set('a', 1, 6)
  cache.set('b', 2, 4)
  cache.set('c', 3, 3)
  assert.deepEqual([cache.has('a'), cache.has('b'), cache.has('c')], [false, true, true])
  cache.set('huge', 4, 11)
  assert.equal(cache.has('huge'), false)
  cache.delete('b')
  cache.set('d', 5, 7)
  assert.deepEqual([cache.has('c'), cache.has('d')], [true, true])
  cache.set('c', 6, 1)
  assert.equal(cache.size, 2)
  cache.clear()
  assert.equal(cache.size, 0)
})
