import assert from 'node:assert/strict'
import { spawn } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { test } from 'node:test'
import { fileURLToPath } from 'node:url'
import { EventJournal } from './event-journal'
import { testStore } from '../testing/test-store'
import { eventFixture, oneAddedWebhook } from '../testing/event-fixture'
import { WebhookReceiver, waitFor } from '../testing/webhook-receiver'

const CHILD = fileURLToPath(new URL('../testing/emit-and-hang.ts', import.meta.url))

test('kill -9 with a thousand events pending, then a restart: every event is delivered, in order', async (t) => {
  const dataDir = mkdtempSync(join(tmpdir(), 'linkdesk-crash-'))
  let accepting = 100
  const receiver = await WebhookReceiver.start((delivery, index) => ({
    status: index < accepting ? 200 : 503,
  }))
  t.after(async () => {
    await receiver.close()
    rmSync(dataDir, { recursive: true, force: true })
  })

  const child = spawn(process.execPath, ['--import', 'tsx', CHILD, dataDir, receiver.url, '1000'], {
    stdio: ['ignore', 'pipe', 'inherit'],
  })
  t.after(() => child.kill('SIGKILL'))
  let output = ''
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()))
  await waitFor(() => output.endsWith('\n'), 30_000, 'the child emitted its events')
  const emitted = JSON.parse(output) as string[]
  assert.equal(emitted.length, 1000)
  await receiver.until(() => receiver.received.length > 102, 30_000)
  const exited = new Promise((resolve) => child.once('exit', resolve))
  child.kill('SIGKILL')
  await exited
  const acceptedBeforeKill = receiver.accepted().length

  accepting = Infinity
  const restarted = await eventFixture(undefined, dataDir)
  t.after(() => restarted.close())
  restarted.addInstance('CRASH', receiver.url)
  const unique = () => new Set(receiver.accepted().map((delivery) => delivery.event.event_id))
  await receiver.until(() => unique().size === 1000, 30_000)

  assert.deepEqual([...unique()].sort(), [...emitted].sort(), 'every emitted event arrived')
  const firstArrivals = [...unique()]
  assert.deepEqual(firstArrivals, emitted, 'in the order they were emitted')
  const seen = new Set<string>()
  const again = receiver
    .accepted()
    .filter(({ event }) => seen.has(event.event_id) || !seen.add(event.event_id))
  const window = new Set(emitted.slice(0, acceptedBeforeKill))
  assert.ok(
    again.every(({ event }) => window.has(event.event_id)),
    'only events delivered just before the kill may arrive a second time (at least once; ids dedupe them)',
  )
  await waitFor(() => restarted.service.outboxDepth === 0)
})

test('events are kept when the process is killed right after emit returned, before any commit', async (t) => {
  const dataDir = mkdtempSync(join(tmpdir(), 'linkdesk-crash-'))
  const receiver = await WebhookReceiver.start()
  t.after(async () => {
    await receiver.close()
    rmSync(dataDir, { recursive: true, force: true })
  })
  const child = spawn(process.execPath, ['--import', 'tsx', CHILD, dataDir, receiver.url, '500', 'die'], {
    stdio: ['ignore', 'pipe', 'inherit'],
  })
  let output = ''
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()))
  const signal = await new Promise((resolve) => child.once('exit', (_code, signal) => resolve(signal)))
  assert.equal(signal, 'SIGKILL')
  const emitted = JSON.parse(output) as string[]
  // With a journal (LMDB) emit returns before the commit; a store without one (PostgreSQL) commits first.
  const journaled = EventJournal.read(join(dataDir, 'events.journal'))
  if (testStore() === 'lmdb')
    assert.equal(journaled.length, 500, 'the events were in the journal only, not yet committed')
  else assert.equal(journaled.length, 0, 'no journal: the commit is the durability point')

  const restarted = await eventFixture(undefined, dataDir)
  t.after(() => restarted.close())
  restarted.addInstance('CRASH', receiver.url)
  const unique = () => [...new Set(receiver.accepted().map((delivery) => delivery.event.event_id))]
  await receiver.until(() => unique().length === emitted.length, 30_000)
  assert.deepEqual(unique(), emitted)
  await restarted.service.settled()
  assert.equal(
    (await restarted.service.reader.events({ visible: () => true }, { limit: 500, order: 'asc' })).items
      .length,
    500,
  )
})

test('an added webhook’s queue survives a kill before any commit: both webhooks get every event', async (t) => {
  const dataDir = mkdtempSync(join(tmpdir(), 'linkdesk-crash-'))
  const own = await WebhookReceiver.start()
  const added = await WebhookReceiver.start()
  t.after(async () => {
    await Promise.all([own.close(), added.close()])
    rmSync(dataDir, { recursive: true, force: true })
  })
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', CHILD, dataDir, own.url, '200', 'die', 'events', added.url],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  )
  let output = ''
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()))
  const signal = await new Promise((resolve) => child.once('exit', (_code, signal) => resolve(signal)))
  assert.equal(signal, 'SIGKILL')
  const emitted = JSON.parse(output) as string[]
  const restarted = await eventFixture(undefined, dataDir, { webhooks: oneAddedWebhook('CRASH', added.url) })
  t.after(() => restarted.close())
  restarted.addInstance('CRASH', own.url)
  const unique = (receiver: WebhookReceiver) => [
    ...new Set(receiver.accepted().map((delivery) => delivery.event.event_id)),
  ]
  await own.until(() => unique(own).length === emitted.length, 30_000)
  await added.until(() => unique(added).length === emitted.length, 30_000)
  assert.deepEqual(unique(own), emitted)
  assert.deepEqual(unique(added), emitted, 'in order, each once')
  assert.equal(added.accepted()[0]?.headers['x-linkdesk-event-id'], emitted[0])
})

test('a network message keeps its one event id across a kill before any commit', async (t) => {
  const dataDir = mkdtempSync(join(tmpdir(), 'linkdesk-crash-'))
  const receiver = await WebhookReceiver.start()
  t.after(async () => {
    await receiver.close()
    rmSync(dataDir, { recursive: true, force: true })
  })
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', CHILD, dataDir, receiver.url, '50', 'die', 'messages'],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  )
  let output = ''
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()))
  await new Promise((resolve) => child.once('exit', resolve))
  const emitted = JSON.parse(output) as string[]
  assert.equal(emitted.length, 50)

  const restarted = await eventFixture(undefined, dataDir)
  t.after(() => restarted.close())
  restarted.addInstance('CRASH', receiver.url)
  for (let n = 0; n < 50; n++) {
    const again = await restarted.service.emitForMessage('CRASH', `M${n}`, 'message.received', { n })
    assert.equal(again, undefined, `M${n} was announced before the kill`)
  }
  const [fresh, twice] = await Promise.all([
    restarted.service.emitForMessage('CRASH', 'M50', 'message.received', { n: 50 }),
    restarted.service.emitForMessage('CRASH', 'M50', 'message.received', { n: 50 }),
  ])
  assert.ok(fresh)
  assert.equal(twice, undefined, 'announced once while the first is being written')
  // A copy resolves (and the network hears of it) only once the first copy's event is durable: without a
  // journal, once it is committed.
  const first = restarted.service.emitForMessage('CRASH', 'M51', 'message.received', { n: 51 })
  assert.equal(
    await restarted.service.emitForMessage('CRASH', 'M51', 'message.received', { n: 51 }),
    undefined,
  )
  const firstId = (await first)!.event_id
  if (testStore() === 'postgres') assert.ok(await restarted.service.reader.event(firstId), 'committed first')
  assert.ok(
    await restarted.service.emitForMessage('OTHER', 'M50', 'message.received', { n: 50 }),
    'per instance',
  )
  await restarted.service.settled()
  assert.equal(await restarted.service.emitForMessage('CRASH', 'M50', 'message.received', {}), undefined)
  const unique = () => [...new Set(receiver.accepted().map((delivery) => delivery.event.event_id))]
  await receiver.until(() => unique().length === 52, 30_000)
  assert.deepEqual(unique(), [...emitted, fresh.event_id, firstId])
})

test('a post under way at a kill is posted again after the restart and counted as a re-post', async (t) => {
  const dataDir = mkdtempSync(join(tmpdir(), 'linkdesk-crash-'))
  // The third post gets no answer before the kill: the receiver may have acted on it.
  const receiver = await WebhookReceiver.start((delivery, index) => ({
    status: 200,
    delayMs: index === 2 ? 60_000 : 0,
  }))
  t.after(async () => {
    await receiver.close()
    rmSync(dataDir, { recursive: true, force: true })
  })
  const child = spawn(process.execPath, ['--import', 'tsx', CHILD, dataDir, receiver.url, '5'], {
    stdio: ['ignore', 'pipe', 'inherit'],
  })
  t.after(() => child.kill('SIGKILL'))
  let output = ''
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()))
  await waitFor(() => output.endsWith('\n'), 30_000, 'the child emitted its events')
  await waitFor(() => receiver.received.length === 3, 30_000, 'the third post')
  const exited = new Promise((resolve) => child.once('exit', resolve))
  child.kill('SIGKILL')
  await exited
  const emitted = JSON.parse(output) as string[]
  receiver.respond = () => ({ status: 200 })

  const restarted = await eventFixture(undefined, dataDir)
  t.after(() => restarted.close())
  restarted.addInstance('CRASH', receiver.url)
  const last = emitted.at(-1)
  await receiver.until(() => receiver.received.slice(3).some(({ event }) => event.event_id === last), 30_000)
  // The third post was never answered, so it comes again. The earlier ones' 2xx may also have come too late
  // to be kept before the kill (an outbox removal commits after the answer; the next post does not wait for
  // it): then they come again too — on a loaded machine, on either store, possibly both.
  const again = receiver.received.slice(3).map(({ event }) => event.event_id)
  const from = emitted.indexOf(again[0] ?? '')
  assert.ok(from >= 0 && from <= 2, `posting resumes at or before the third event (at ${from})`)
  assert.deepEqual(again, emitted.slice(from), 'then the rest, in order, each once')
  const reposts = restarted.service
    .metricsProvider()
    .collect()
    .find((family) => family.name === 'linkdesk_webhook_reposts_total')
  assert.equal(reposts?.samples[0]?.value, 3 - from, 'each post received again is counted')
})

test(
  'a post under way when its node dies is posted again by another node on the shared store and counted there',
  { skip: testStore() === 'postgres' ? false : 'the outbox is shared only on PostgreSQL' },
  async (t) => {
    const dataDir = mkdtempSync(join(tmpdir(), 'linkdesk-crash-'))
    // The other node: its own data folder, the same database (the test store of `dataDir`).
    const otherDir = mkdtempSync(join(tmpdir(), 'linkdesk-other-'))
    // The first post is held open until the kill: the receiver may have acted on it.
    const receiver = await WebhookReceiver.start(() => ({ status: 200, delayMs: 60_000 }))
    t.after(async () => {
      await receiver.close()
      rmSync(dataDir, { recursive: true, force: true })
      rmSync(otherDir, { recursive: true, force: true })
    })
    const child = spawn(process.execPath, ['--import', 'tsx', CHILD, dataDir, receiver.url, '2'], {
      stdio: ['ignore', 'pipe', 'inherit'],
    })
    t.after(() => child.kill('SIGKILL'))
    let output = ''
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()))
    await waitFor(() => output.endsWith('\n'), 30_000, 'the child emitted its events')
    await waitFor(() => receiver.received.length === 1, 30_000, 'the first post')
    const exited = new Promise((resolve) => child.once('exit', resolve))
    child.kill('SIGKILL')
    await exited
    const emitted = JSON.parse(output) as string[]
    receiver.respond = () => ({ status: 200 })

    const other = await eventFixture(undefined, dataDir, { dataDir: otherDir })
    t.after(() => other.close())
    other.addInstance('CRASH', receiver.url)
    await receiver.until(() => receiver.received.length === 3, 30_000)
    assert.deepEqual(
      receiver.received.map(({ event }) => event.event_id),
      [emitted[0], ...emitted],
      'the post under way comes again, then the next',
    )
    const reposts = other.service
      .metricsProvider()
      .collect()
      .find((family) => family.name === 'linkdesk_webhook_reposts_total')
    assert.equal(reposts?.samples[0]?.value, 1, 'the other node counts the post it repeated')
  },
)
