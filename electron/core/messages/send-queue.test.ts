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
    queue.run('a', 'chat', async () => {
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
    queue.run('a', 'chat', async () => {
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
    queue.run('a', 'chat', async () => void (starts.a = clock.now)),
    queue.run('b', 'chat', async () => void (starts.b = clock.now)),
  ])
  assert.deepEqual(starts, { a: 0, b: 0 })
})

test('a full queue refuses with rate_limited and a Retry-After; a failed send neither stops nor delays the next', async () => {
  const { now, sleep, clock } = fakeClock()
  const queue = new SendQueue({ intervalMs: 1000, jitterMs: 1000, maxWaiting: 2, now, sleep })
  let release!: () => void
  const gate = new Promise<void>((resolve) => (release = resolve))
  const first = queue.run('a', 'chat', async () => {
    await gate
    throw new Error('network said no')
  })
  await new Promise((resolve) => setImmediate(resolve))
  const second = queue.run('a', 'chat', async () => 'second')
  const third = queue.run('a', 'chat', async () => 'third')
  assert.equal(queue.waiting('a'), 2)
  assert.throws(
    () => queue.run('a', 'chat', async () => 'fourth'),
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
  const running = queue.run(
    'a',
    'chat',
    () => new Promise<string>((resolve) => (release = () => resolve('ran'))),
  )
  await new Promise((resolve) => setImmediate(resolve))
  const waiting = queue.run('a', 'chat', async () => 'never')
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
  await Promise.all([1, 2, 3].map((n) => queue.run('a', 'chat', async () => n)))
  assert.deepEqual(clock.slept, [])
})

test('with pacing off, different chats of an instance send in parallel and each chat keeps its order', async () => {
  const { now, sleep } = fakeClock()
  const queue = new SendQueue({ intervalMs: 0, jitterMs: 0, maxWaiting: 10, now, sleep })
  const gates = new Map<string, () => void>()
  const order: string[] = []
  const send = (chat: string, n: number) =>
    queue.run('a', chat, async () => {
      order.push(`${chat} ${n} starts`)
      await new Promise<void>((resolve) => gates.set(`${chat} ${n}`, resolve))
      order.push(`${chat} ${n} ends`)
    })
  const sends = [send('x', 1), send('x', 2), send('y', 1)]
  await new Promise((resolve) => setImmediate(resolve))
  await new Promise((resolve) => setImmediate(resolve))
  assert.deepEqual(order, ['x 1 starts', 'y 1 starts'], 'y does not wait for x; x 2 waits for x 1')
  assert.equal(queue.waiting('a'), 1)
  gates.get('y 1')?.()
  gates.get('x 1')?.()
  while (!gates.has('x 2')) await new Promise((resolve) => setImmediate(resolve))
  gates.get('x 2')?.()
  await Promise.all(sends)
  assert.deepEqual(order.slice(2), ['y 1 ends', 'x 1 ends', 'x 2 starts', 'x 2 ends'])
  assert.equal(queue.depth(), 0)
})

test('with pacing on, different chats of an instance still take turns', async () => {
  const { clock, now, sleep } = fakeClock()
  const queue = new SendQueue({ intervalMs: 1000, jitterMs: 0, maxWaiting: 10, now, sleep })
  const starts: number[] = []
  await Promise.all(
    ['x', 'y', 'z'].map((chat) => queue.run('a', chat, async () => void starts.push(clock.now))),
  )
  assert.deepEqual(starts, [0, 1000, 2000])
})

test('the bound counts the sends of an instance across its chats', async () => {
  const { now, sleep } = fakeClock()
  const queue = new SendQueue({ intervalMs: 0, jitterMs: 0, maxWaiting: 1, now, sleep })
  let release!: () => void
  const gate = new Promise<void>((resolve) => (release = resolve))
  const first = queue.run('a', 'x', () => gate)
  const second = queue.run('a', 'y', () => gate)
  assert.throws(
    () => queue.run('a', 'z', async () => undefined),
    (error: unknown) => error instanceof AppError && error.code === 'rate_limited',
  )
  assert.doesNotThrow(() => queue.assertRoom('b'))
  release()
  await Promise.all([first, second])
  assert.doesNotThrow(() => queue.assertRoom('a'))
})
