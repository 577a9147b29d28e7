import assert from 'node:assert/strict'
import { test } from 'node:test'
import { DEFAULT_WINDOW_STATE, MIN_WINDOW_SIZE, restoreWindowState } from './window-state'

const LAPTOP = { x: 0, y: 0, width: 1440, height: 875 }
const MONITOR = { x: 1440, y: 0, width: 2560, height: 1400 }

test('a saved window opens where it was, at the size it had', () => {
  const saved = { width: 1000, height: 700, x: 1600, y: 100, maximized: true }
  assert.deepEqual(restoreWindowState(saved, [LAPTOP, MONITOR]), saved)
})

test('an unreadable saved state opens the default window', () => {
  for (const saved of [
    undefined,
    null,
    'big',
    { width: 'wide', height: 700 },
    { width: Number.NaN, height: 1 },
  ]) {
    assert.deepEqual(restoreWindowState(saved, [LAPTOP]), DEFAULT_WINDOW_STATE)
  }
})

test('a window last seen on a monitor that is now unplugged opens on a screen that exists', () => {
  const state = restoreWindowState({ width: 1000, height: 700, x: 1600, y: 100, maximized: false }, [LAPTOP])
  assert.equal(state.x, undefined)
  assert.equal(state.y, undefined)
  assert.equal(state.width, 1000)
})

test('the size stays between the minimum and the largest screen', () => {
  assert.deepEqual(restoreWindowState({ width: 10, height: 10 }, [LAPTOP]), {
    ...MIN_WINDOW_SIZE,
    maximized: false,
  })
  const huge = restoreWindowState({ width: 9000, height: 9000 }, [LAPTOP, MONITOR])
  assert.deepEqual([huge.width, huge.height], [MONITOR.width, MONITOR.height])
})
