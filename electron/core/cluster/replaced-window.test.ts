import assert from 'node:assert/strict'
import { test } from 'node:test'
import { REPLACED_LIMIT, REPLACED_WINDOW_MS, ReplacedWindow } from './replaced-window'

const MINUTE = 60_000

test('a node that still holds an instance reconnects after a 440 until the third within 10 minutes, then stops', () => {
  assert.equal(REPLACED_LIMIT, 3)
  assert.equal(REPLACED_WINDOW_MS, 10 * MINUTE)
  const window = new ReplacedWindow()
  assert.equal(window.record('A', 0), 'retry')
  assert.equal(window.record('A', 4 * MINUTE), 'retry')
  // Another instance's 440s are counted apart.
  assert.equal(window.record('B', 5 * MINUTE), 'retry')
  assert.equal(window.record('A', 9 * MINUTE), 'stop')
  // After a stop the count starts over (the operator's reconnect gets the same three).
  assert.equal(window.record('A', 9 * MINUTE + 1), 'retry')
})

test('440s further apart than the window never stop the instance', () => {
  const window = new ReplacedWindow()
  for (let i = 0; i < 10; i++) assert.equal(window.record('A', i * 6 * MINUTE), 'retry')
  // The first of these three is exactly 10 minutes old at the third: out of the window.
  const late = new ReplacedWindow()
  assert.equal(late.record('A', 0), 'retry')
  assert.equal(late.record('A', 5 * MINUTE), 'retry')
  assert.equal(late.record('A', 10 * MINUTE), 'retry')
  assert.equal(late.record('A', 11 * MINUTE), 'stop')
})
