import assert from 'node:assert/strict'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { test } from 'node:test'
import pg from 'pg'
import { postOk } from '../../bench/harness/http'
import type { Started } from '../../bench/harness/processes'
import {
  killNow,
  linkServedInstance,
  loggedReceivedEvents,
  startStormServe,
} from '../core/testing/storm-node'
import { startSandbox, type OutsideSandbox } from '../../bench/harness/sandbox'
import { eventIdsByMessage, waitFor, WebhookReceiver } from '../core/testing/webhook-receiver'
import { testDatabaseFor, testStore, testStoreEnv } from '../core/testing/test-store'

// A contact's burst of messages arrives while the app is killed with SIGKILL; it is started again on the same
// data folder and store. Every message must be in the event log once and reach the webhook under that one
// event id (the same event may be posted twice: webhooks are at least once).
const ROUNDS = Number(process.env.LINKDESK_BURST_ROUNDS ?? 5)
const BURST = 100
/** Contact requests in flight during a burst. */
const LANES = 8
const TOKEN = 'burst-kill-token'
const ME = '15550710001'
const ALICE = '15550710002'

function startServe(dataDir: string, controlUrl: string, env: Record<string, string>): Promise<Started> {
  return startStormServe(dataDir, controlUrl, { LINKDESK_ACCESS_TOKEN: TOKEN, ...env })
}

/** A `serve` process whose one instance is linked and posts to a receiver; it can be killed and started again. */
async function linkedServe(t: { after(fn: () => Promise<void>): void }) {
  const sandbox = await startSandbox()
  const receiver = await WebhookReceiver.start()
  const dataDir = mkdtempSync(join(tmpdir(), 'linkdesk-burst-'))
  const env = await testStoreEnv(dataDir)
  let app = await startServe(dataDir, sandbox.controlUrl, env)
  t.after(async () => {
    await app.stop()
    await sandbox.stop()
    await receiver.close()
    rmSync(dataDir, { recursive: true, force: true })
  })
  const call = <T>(name: string, params: Record<string, unknown> = {}) =>
    postOk<T>(`${app.values.get('api')}/${name}`, { access_token: TOKEN, ...params })
  await sandbox.addContact(ALICE, 'Alice')
  const instanceId = await linkServedInstance(call, sandbox, ME, receiver.url)
  return {
    sandbox,
    receiver,
    dataDir,
    kill: () => killNow(app),
    start: async () => {
      app = await startServe(dataDir, sandbox.controlUrl, env)
    },
    /** Per network message id, the ids of the message.received events in the instance's event log. */
    loggedEvents: () => loggedReceivedEvents(call, instanceId),
  }
}

type Served = Awaited<ReturnType<typeof linkedServe>>

/** Alice sends `count` texts over a few lanes at once; answers their ids once all are sent. */
async function burst(sandbox: OutsideSandbox, round: number, count: number): Promise<string[]> {
  const ids: string[] = []
  let next = 0
  const lane = async () => {
    while (next < count) {
      const n = next++
      ids.push(await sandbox.send(ALICE, ME, `burst ${round}.${n}`))
    }
  }
  await Promise.all(Array.from({ length: LANES }, lane))
  return ids
}

/**
 * Every message sent reached the webhook (naming those that never did), each under one event id, which is
 * its one event in the log; nothing else was announced.
 */
async function assertEachOnce(served: Served, sent: readonly string[]): Promise<void> {
  const { receiver } = served
  await receiver
    .until(() => sent.every((id) => eventIdsByMessage(receiver).has(id)), 60_000)
    .catch((error: unknown) => {
      const missing = sent.filter((id) => !eventIdsByMessage(receiver).has(id))
      throw new Error(`${missing.length} of ${sent.length} messages never reached the webhook: ${missing}`, {
        cause: error,
      })
    })
  const posted = eventIdsByMessage(receiver)
  assert.deepEqual([...posted.keys()].sort(), [...sent].sort(), 'no message other than those sent')
  const logged = await served.loggedEvents()
  for (const id of sent) {
    assert.equal(
      posted.get(id)?.size,
      1,
      `message ${id} reached the webhook under ${posted.get(id)?.size} ids`,
    )
    assert.deepEqual(logged.get(id), [...posted.get(id)!], `message ${id}: its one event is in the log`)
  }
}

test(
  `kill -9 during each of ${ROUNDS} bursts of ${BURST} incoming messages: each message is logged and posted under one event id`,
  { timeout: 120_000 + ROUNDS * 90_000 },
  async (t) => {
    const served = await linkedServe(t)
    const { sandbox, receiver } = served
    const sent: string[] = []
    for (let round = 0; round < ROUNDS; round++) {
      const before = eventIdsByMessage(receiver).size
      const sending = burst(sandbox, round, BURST)
      // Killed some 10 to 50 webhooks into the burst (or at its end, if it all came in before).
      const killAfter = before + 10 + Math.floor(Math.random() * 40)
      await Promise.race([
        receiver.until(() => eventIdsByMessage(receiver).size >= killAfter, 60_000),
        sending,
      ])
      await served.kill()
      await served.start()
      sent.push(...(await sending))
      await assertEachOnce(served, sent)
    }
    const posts = receiver.accepted().filter(({ event }) => event.event === 'message.received').length
    t.diagnostic(`${sent.length} messages, ${ROUNDS} kills: ${posts - sent.length} re-posts`)
  },
)

test(
  'kill -9 after a message was decrypted, while its commit (its stored row and its event) waits (PostgreSQL): after the restart it is logged and posted once',
  { skip: testStore() !== 'postgres' && 'holds the commit with a PostgreSQL lock', timeout: 240_000 },
  async (t) => {
    const served = await linkedServe(t)
    const { sandbox } = served
    const first = await sandbox.send(ALICE, ME, 'before the lock')
    await assertEachOnce(served, [first])

    const db = new pg.Client({ connectionString: await testDatabaseFor(served.dataDir) })
    await db.connect()
    t.after(() => db.end())
    // The first message's delivery is done writing: a write waiting behind the lock is the next message's.
    await waitFor(
      async () => (await db.query('SELECT 1 FROM webhook_outbox')).rowCount === 0,
      30_000,
      'the first delivery finished',
    )
    // Inside a transaction PostgreSQL reads pg_stat_activity once and answers that snapshot again: each
    // look clears it first, or the lock's waiters would never show.
    const waitingForLock = async (text = '') => {
      await db.query('SELECT pg_stat_clear_snapshot()')
      const { rowCount } = await db.query(
        `SELECT pid FROM pg_stat_activity
         WHERE datname = current_database() AND pid <> pg_backend_pid() AND wait_event_type = 'Lock'
           AND strpos(query, $1) > 0`,
        [text],
      )
      return rowCount ?? 0
    }
    // Writes to `events` wait behind this lock (reads go on): the app is held right at the commit of the
    // decrypted message's row and event (one transaction: neither is visible before the other).
    await db.query('BEGIN')
    await db.query('LOCK TABLE events IN SHARE ROW EXCLUSIVE MODE')
    const held = await sandbox.send(ALICE, ME, 'held at the commit')
    // The one message arriving now: its row's insert waits (pg_stat_activity shows a query's first 1 kB only,
    // which the row's id may lie beyond).
    await waitFor(
      async () => (await waitingForLock('INSERT INTO messages')) > 0,
      60_000,
      'the message’s commit waiting',
    )
    assert.equal((await db.query('SELECT 1 FROM messages WHERE id = $1', [held])).rowCount, 0)
    await served.kill()
    // What the killed process had sent never commits: its waiting connections end before the lock goes.
    await db.query(
      `SELECT pg_terminate_backend(pid) FROM pg_stat_activity
       WHERE datname = current_database() AND pid <> pg_backend_pid()`,
    )
    await waitFor(async () => (await waitingForLock()) === 0, 30_000, 'the killed commits ended')
    assert.equal((await db.query(`SELECT 1 FROM events WHERE envelope LIKE $1`, [`%${held}%`])).rowCount, 0)
    assert.equal((await db.query('SELECT 1 FROM messages WHERE id = $1', [held])).rowCount, 0)
    await db.query('ROLLBACK')

    await served.start()
    await assertEachOnce(served, [first, held])
  },
)
