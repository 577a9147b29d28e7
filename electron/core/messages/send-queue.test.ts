import assert from 'node:assert/strict'
import { test } from 'node:test'
import { AppError } from '../errors'
import { SendQueue } from './send-queue'

function fakeClock() {
  const clock = { now: 0, slept: [] as number[] }
  return {
    clock,
    now: () => clock.now,
    sleep: async (ms: number) => {
      clock.slept.push(ms)
      clock.now += ms
    },
  }
}

test('sends of one instance run one at a time, spaced by the interval plus jitter', async () => {
  const { clock, now, sleep } = fakeClock()
  const queue = new SendQueue({
    intervalMs: 1000,
    jitterMs: 500,
    maxWaiting: 10,
    now,
    sleep,
    random: () => 0.5,
  })
  const starts: number[] = []
  let running = 0
  const send = (value: number) =>
    queue.run('a', async () => {
      running++
      assert.equal(running, 1)
      starts.push(clock.now)
      await new Promise((resolve) => setImmediate(resolve))
      running--
      return value
    })
  assert.deepEqual(await Promise.all([send(1), send(2), send(3)]), [1, 2, 3])
  assert.deepEqual(starts, [0, 1250, 2500])
})

test('pacing 0 runs back to back, yet yields to the event loop before each send', async () => {
  const { clock, now, sleep } = fakeClock()
  const queue = new SendQueue({ intervalMs: 0, jitterMs: 0, maxWaiting: 10, now, sleep })
  const order: string[] = []
  const sends = [1, 2, 3].map((n) =>
    queue.run('a', async () => {
      order.push(`send ${n}`)
      // Work that the event loop must get to between two sends (a timer, an incoming frame).
      setImmediate(() => order.push(`turn after ${n}`))
    }),
  )
  await Promise.all(sends)
  await new Promise((resolve) => setImmediate(resolve))
  assert.deepEqual(order, ['send 1', 'turn after 1', 'send 2', 'turn after 2', 'send 3', 'turn after 3'])
  assert.deepEqual(clock.slept, [])
})

test('instances do not wait for each other', async () => {
  const { now, sleep, clock } = fakeClock()
  const queue = new SendQueue({ intervalMs: 1000, jitterMs: 0, maxWaiting: 10, now, sleep })
  const starts: Record<string, number> = {}
  await Promise.all([
    queue.run('a', async () => void (starts.a = clock.now)),
    queue.run('b', async () => void (starts.b = clock.now)),
  ])
  assert.deepEqual(starts, { a: 0, b: 0 })
})

test('a full queue refuses with rate_limited and a Retry-After; a failed send neither stops nor delays the next', async () => {
  const { now, sleep, clock } = fakeClock()
  const queue = new SendQueue({ intervalMs: 1000, jitterMs: 1000, maxWaiting: 2, now, sleep })
  let release!: () => void
  const gate = new Promise<void>((resolve) => (release = resolve))
  const first = queue.run('a', async () => {
    await gate
    throw new Error('network said no')
  })
  await new Promise((resolve) => setImmediate(resolve))
  const second = queue.run('a', async () => 'second')
  const third = queue.run('a', async () => 'third')
  assert.equal(queue.waiting('a'), 2)
  assert.throws(
    () => queue.run('a', async () => 'fourth'),
    (error: unknown) => error instanceof AppError && error.code === 'rate_limited' && error.retryAfter === 5,
  )
  release()
  await assert.rejects(first, /network said no/)
  assert.equal(await second, 'second')
  assert.equal(await third, 'third')
  assert.equal(clock.slept.length, 1, 'one pause: after the second, none after the failed first')
  assert.doesNotThrow(() => queue.assertRoom('a'))
})

test('cancel refuses the waiting sends of an instance', async () => {
  const { now, sleep } = fakeClock()
  const queue = new SendQueue({ intervalMs: 0, jitterMs: 0, maxWaiting: 5, now, sleep })
  let release!: () => void
  const running = queue.run('a', () => new Promise<string>((resolve) => (release = () => resolve('ran'))))
  await new Promise((resolve) => setImmediate(resolve))
  const waiting = queue.run('a', async () => 'never')
  queue.cancel('a', new AppError('not_connected'))
  await assert.rejects(
    waiting,
    (error: unknown) => error instanceof AppError && error.code === 'not_connected',
  )
  release()
  assert.equal(await running, 'ran')
})

test('an interval of 0 turns pacing off, jitter included', async () => {
  const { clock, now, sleep } = fakeClock()
  const queue = new SendQueue({
    intervalMs: 0,
    jitterMs: 500,
    maxWaiting: 10,
    now,
    sleep,
    random: () => 0.99,
  })
  await Promise.all([1, 2, 3].map((n) => queue.run('a', async () => n)))
  assert.deepEqual(clock.slept, [])
})
