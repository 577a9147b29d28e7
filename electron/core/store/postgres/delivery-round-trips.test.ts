import assert from 'node:assert/strict'
import { rmSync } from 'node:fs'
import { after, before, describe, test } from 'node:test'
import pg from 'pg'
import type { Core } from '../../index'
import { call, startCore, tempDataDir } from '../../testing/instance-harness'
import { linkedInstance, recordEvents } from '../../testing/messaging-harness'
import { postgresMissing, startPostgres, type PostgresServer } from '../../testing/postgres-server'
import { queriesDuring, SIGNALLING } from '../../testing/postgres-queries'
import { waitFor, WebhookReceiver } from '../../testing/webhook-receiver'

// Round trips to PostgreSQL per incoming message delivered to the instance's webhook (one event per POST, in
// order), counted at pg's client on the app's own database: a count, whatever the machine's load.
const ME = '15550730001'
const ALICE = '15550730002'
const MESSAGES = 20

describe('round trips per delivered event on PostgreSQL', { skip: postgresMissing() }, () => {
  let server: PostgresServer
  let core: Core
  let database: string
  let url: string
  let receiver: WebhookReceiver
  let events: ReturnType<typeof recordEvents>
  const dataDir = tempDataDir()
  const delivered = (text: string) =>
    receiver.accepted().some(({ event }) => event.event === 'message.received' && event.data.text === text)
  before(async () => {
    server = await startPostgres()
    url = await server.createDatabase()
    database = new URL(url).pathname.slice(1)
    receiver = await WebhookReceiver.start()
    core = await startCore({
      dataDir,
      sandbox: true,
      store: url,
      limits: { sendIntervalMs: 0, sendJitterMs: 0 },
    })
    events = recordEvents(core)
    await core.sandbox!.control.addAccount({ phone: ALICE, name: 'Alice' })
    const instanceId = await linkedInstance(core, ME)
    const set = await call(core.apiBase, 'set_webhook', {
      instance_id: instanceId,
      webhook_url: receiver.url,
      enable: true,
    })
    assert.equal(set.status, 200, JSON.stringify(set.body))
    // The session with Alice is set up (its keys read, its event delivered) before anything is counted.
    await core.sandbox!.control.send(ALICE, { to: ME, text: 'hello' })
    await receiver.until(() => delivered('hello'))
    await core.events.settled()
    await core.authStore.forInstance(instanceId).committed()
    // Its outcome is recorded (the receiver has its POST a moment before): that commit is not counted below.
    const client = new pg.Client({ connectionString: url })
    await client.connect()
    try {
      const queued = async () =>
        (await client.query<{ n: number }>('SELECT count(*)::int AS n FROM webhook_outbox')).rows[0]!.n
      await waitFor(async () => (await queued()) === 0, 15_000, 'the first outcome recorded')
    } finally {
      await client.end()
    }
  })
  after(async () => {
    await core?.close()
    await receiver?.close()
    server?.stop()
    rmSync(dataDir, { recursive: true, force: true })
  })

  test('a backlog of events is delivered in order with one round trip of the webhook’s per event', async (t) => {
    const texts = Array.from({ length: MESSAGES }, (_, n) => `delivered ${n}`)
    // The receiver holds its answer to the first POST until every event is committed: the rest wait behind it.
    let release = () => {}
    const gate = new Promise<void>((resolve) => (release = resolve))
    receiver.respond = ({ event }) =>
      event.data.text === texts[0] ? { status: 200, after: gate } : { status: 200 }
    const client = new pg.Client({ connectionString: url })
    await client.connect()
    // The test's own reads, told apart from the app's by their comment.
    const read = async () => {
      const { rows } = await client.query<{ status: string; queued: number }>(
        `/* test */ SELECT delivery::jsonb->>'status' AS status,
           (SELECT count(*)::int FROM webhook_outbox) AS queued FROM events WHERE event = 'message.received'
           AND envelope::jsonb->'data'->>'text' = ANY($1)`,
        [texts],
      )
      return rows
    }
    try {
      const queries = await queriesDuring(database, async () => {
        for (const text of texts) {
          const { id } = await core.sandbox!.control.send(ALICE, { to: ME, text })
          await events.waitFor((event) => event.event === 'message.received' && event.data.id === id, text)
        }
        await core.events.settled()
        release()
        await receiver.until(() => texts.every(delivered))
        // Every outcome is recorded: each event's summary says delivered, and the outbox is empty.
        await waitFor(
          async () => {
            const rows = await read()
            return (
              rows.length === MESSAGES &&
              rows.every(({ status, queued }) => status === 'delivered' && queued === 0)
            )
          },
          15_000,
          'every outcome recorded',
        )
      })
      const got = receiver
        .accepted()
        .map(({ event }) => String(event.data.text))
        .filter((text) => texts.includes(text))
      assert.deepEqual(got, texts, 'each event reached the receiver once, in order')
      const webhook = queries
        .map(({ text }) => text)
        .filter((text) => !text.startsWith('/* test */') && !SIGNALLING.test(text))
        .filter((text) => !/INSERT INTO events/.test(text) && /webhook_outbox|delivery_attempts/.test(text))
      t.diagnostic(`${webhook.length} round trips of the webhook for ${MESSAGES} delivered events`)
      // Each POST's posting mark carries the outcome of the POST before it; the last outcome goes on its own.
      assert.ok(
        webhook.length <= MESSAGES + 1,
        `${webhook.length} round trips for ${MESSAGES} delivered events:\n${webhook.map((text) => text.slice(0, 120)).join('\n')}`,
      )
    } finally {
      await client.end()
    }
  })
})
