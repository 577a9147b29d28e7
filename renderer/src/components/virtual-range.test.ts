import assert from 'node:assert/strict'
import { test } from 'node:test'
import { visibleRange } from './virtual-range'

test('a list of 100,000 rows renders only the rows in view and a few around them', () => {
  const bottom = visibleRange(100_000 * 36 - 600, 600, 36, 100_000, 8)
  assert.deepEqual(bottom, { start: 99_975, end: 100_000 })
  const middle = visibleRange(360_000, 600, 36, 100_000, 8)
  assert.equal(middle.start, 9_992)
  assert.equal(middle.end - middle.start, 18 + 16)
})

test('an empty or unmeasured list renders nothing, and the top renders from the first row', () => {
  assert.deepEqual(visibleRange(0, 600, 36, 0), { start: 0, end: 0 })
  assert.deepEqual(visibleRange(0, 0, 36, 10, 2), { start: 0, end: 3 })
  assert.deepEqual(visibleRange(-50, 100, 50, 10, 0), { start: 0, end: 3 })
})
