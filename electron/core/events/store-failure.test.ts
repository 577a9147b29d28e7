import assert from 'node:assert/strict'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Writable } from 'node:stream'
import { test } from 'node:test'
import { createLogger } from '../logger'
import { openDatabase, type RootDatabase } from '../store/lmdb/database'
import type { InstanceRecord } from '../store/settings-store'
import { EventService } from './event-service'
import { LmdbEventStore } from '../store/lmdb/events'
import { FAST_EVENT_SETTINGS } from '../testing/event-fixture'
import { WebhookReceiver, waitFor } from '../testing/webhook-receiver'
import { SingleNode } from '../cluster/single-node'

/**
 * The app's real database, whose commits fail while `failing` is set: LMDB reports a failed commit (a full
 * disk, an I/O error) by rejecting the batch's promise, with none of its writes applied, as this does.
 */
const WRITES = new Set(['put', 'remove', 'putSync', 'removeSync'])

/**
 * The database as a full disk would leave it while `failing.on`: a batch fails, and so does every write staged
 * into a transaction (the writes held back to ride in another commit), so nothing of a failed commit lands.
 */
function faultyDatabase(db: RootDatabase): { db: RootDatabase; failing: { on: boolean } } {
  const failing = { on: false }
  const full = () => new Error('MDB_MAP_FULL: Environment mapsize limit reached')
  const faulty = <T extends object>(target: T, root: boolean): T =>
    new Proxy(target, {
      get(inner, property) {
        if (failing.on && root && property === 'batch') return () => Promise.reject(full())
        if (failing.on && typeof property === 'string' && WRITES.has(property))
          return () => {
            throw full()
          }
        const value: unknown = Reflect.get(inner, property, inner)
        if (property === 'openDB' && typeof value === 'function')
          return (...args: unknown[]) => faulty(value.apply(inner, args) as object, false)
        return typeof value === 'function' ? value.bind(inner) : value
      },
    })
  return { db: faulty(db, true), failing }
}

function capturedLogs() {
  const lines: Array<{ level: number; msg: string }> = []
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const line of chunk.toString('utf8').split('\n')) if (line) lines.push(JSON.parse(line))
      done()
    },
  })
  return { logger: createLogger('info', stream), errors: () => lines.filter((line) => line.level >= 50) }
}

function record(id: string, url: string | null): InstanceRecord {
  return {
    id,
    ownerTokenId: 'token-1',
    createdAt: Date.now(),
    linked: true,
    webhook: { url, enable: url !== null, secret: `whsec_test_${id}` },
  }
}

test('a failed commit is logged, the process stays up, and every event emitted is there after a restart', async (t) => {
  const dataDir = mkdtempSync(join(tmpdir(), 'linkdesk-store-failure-'))
  const receiver = await WebhookReceiver.start()
  const unhandled: unknown[] = []
  const onUnhandled = (reason: unknown) => unhandled.push(reason)
  process.on('unhandledRejection', onUnhandled)
  t.after(async () => {
    process.off('unhandledRejection', onUnhandled)
    await receiver.close()
    rmSync(dataDir, { recursive: true, force: true })
  })
  const instances = new Map([
    ['A', record('A', receiver.url)],
    ['B', record('B', null)],
  ])
  const open = async (db: RootDatabase, logger = capturedLogs().logger) => {
    const service = await EventService.open({
      store: new LmdbEventStore(db),
      durability: 'journal',
      dataDir,
      instances: {
        find: (id) => instances.get(id),
        update: () => assert.fail('this test changes no webhook'),
      },
      settings: FAST_EVENT_SETTINGS,
      logger,
      coordinator: new SingleNode(),
    })
    await service.start()
    return service
  }

  const real = openDatabase(dataDir)
  const { db, failing } = faultyDatabase(real)
  const logs = capturedLogs()
  const service = await open(db, logs.logger)
  const before = service.emit('B', 'message.received', { n: 1 })
  await service.settled()
  assert.ok(await service.reader.event(before.event_id), 'committed before the failure')

  failing.on = true
  const during = service.emit('B', 'message.received', { n: 2 })
  const delivered = service.emit('A', 'message.sent', { n: 3 })
  await service.settled()
  await receiver.until(() => receiver.accepted().length === 1)
  await waitFor(() => logs.errors().length >= 3)
  const messages = logs.errors().map((line) => line.msg)
  assert.equal(messages.filter((msg) => /^event log write failed/.test(msg)).length, 2)
  assert.ok(messages.includes('recording a delivery attempt failed'), messages.join('; '))
  assert.equal(await service.reader.event(during.event_id), undefined, 'the failed commit wrote nothing')
  assert.ok(await service.reader.event(before.event_id), 'what was committed is still there')

  // The store works again: new events commit, and the process carried on all along.
  failing.on = false
  const after = service.emit('B', 'message.received', { n: 4 })
  await service.settled()
  assert.ok(await service.reader.event(after.event_id))
  assert.deepEqual(unhandled, [])
  await service.close()
  await real.close()

  // The next start writes what the failed commits lacked, from the journal, and delivers the queued event.
  const reopened = openDatabase(dataDir)
  const restarted = await open(reopened)
  t.after(async () => {
    await restarted.close()
    await reopened.close()
  })
  for (const event of [before, during, delivered, after]) {
    assert.ok(
      await restarted.reader.event(event.event_id),
      `${event.event_id} is in the log after the restart`,
    )
  }
  await waitFor(
    async () => (await restarted.reader.event(delivered.event_id))?.delivery.status === 'delivered',
  )
  assert.deepEqual(
    receiver.accepted().map((delivery) => delivery.event.event_id),
    [delivered.event_id, delivered.event_id],
    'delivered again, since its delivery was never recorded',
  )
  assert.deepEqual(unhandled, [])
})
