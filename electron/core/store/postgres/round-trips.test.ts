import assert from 'node:assert/strict'
import { rmSync } from 'node:fs'
import { after, before, describe, test } from 'node:test'
import pg from 'pg'
import type { Core } from '../../index'
import { call, startCore, tempDataDir } from '../../testing/instance-harness'
import { linkedInstance, recordEvents } from '../../testing/messaging-harness'
import { postgresMissing, startPostgres, type PostgresServer } from '../../testing/postgres-server'

// Round trips to PostgreSQL per incoming message, counted at pg's client on the app's own database: a count,
// whatever the machine's load.
const ME = '15550720001'
const ALICE = '15550720002'
const MESSAGES = 20

/** The cluster's own traffic: notifications and the log read they wake (at most one per 20 ms), the lease. */
const SIGNALLING = /pg_notify|pg_snapshot_xmin|FROM nodes|UPDATE nodes|instance_owner/

/** Every query the app sends to `database` while `body` runs, as its text (the simple protocol inlines rows). */
async function queriesDuring(database: string, body: () => Promise<void>): Promise<string[]> {
  const seen: string[] = []
  const query = pg.Client.prototype.query
  pg.Client.prototype.query = function (this: pg.Client, ...args: unknown[]) {
    const [first] = args
    const text = typeof first === 'string' ? first : (first as { text?: string } | undefined)?.text
    if (this.database === database && text !== undefined) seen.push(text)
    return (query as (...args: unknown[]) => unknown).apply(this, args)
  } as typeof query
  try {
    await body()
  } finally {
    pg.Client.prototype.query = query
  }
  return seen
}

describe('round trips per incoming message on PostgreSQL', { skip: postgresMissing() }, () => {
  let server: PostgresServer
  let core: Core
  let database: string
  let instanceId: string
  let events: ReturnType<typeof recordEvents>
  const dataDir = tempDataDir()
  before(async () => {
    server = await startPostgres()
    const url = await server.createDatabase()
    database = new URL(url).pathname.slice(1)
    core = await startCore({
      dataDir,
      sandbox: true,
      store: url,
      limits: { sendIntervalMs: 0, sendJitterMs: 0 },
    })
    events = recordEvents(core)
    await core.sandbox!.control.addAccount({ phone: ALICE, name: 'Alice' })
    instanceId = await linkedInstance(core, ME)
    // The session with Alice is set up (and its keys read) before anything is counted.
    const { id } = await core.sandbox!.control.send(ALICE, { to: ME, text: 'hello' })
    await events.waitFor((event) => event.event === 'message.received' && event.data.id === id, 'hello')
    await core.events.settled()
  })
  after(async () => {
    await core?.close()
    server?.stop()
    rmSync(dataDir, { recursive: true, force: true })
  })

  const received = (id: string) =>
    events.waitFor((event) => event.event === 'message.received' && event.data.id === id, id)

  test('each message is stored in the commit of its event; two round trips per message besides the cluster’s', async () => {
    const ids: string[] = []
    const queries = await queriesDuring(database, async () => {
      for (let n = 0; n < MESSAGES; n++) {
        const { id } = await core.sandbox!.control.send(ALICE, { to: ME, text: `counted ${n}` })
        ids.push(id)
      }
      for (const id of ids) await received(id)
      await core.events.settled()
    })
    for (const id of ids) {
      const writing = queries.filter((text) => text.includes('INSERT INTO messages') && text.includes(id))
      assert.equal(writing.length, 1, `one round trip stores ${id}`)
      assert.match(writing[0]!, /INSERT INTO events/, `${id} is stored in its event's commit`)
    }
    const own = queries.filter((text) => !SIGNALLING.test(text))
    // Per message: the event with its message row, and the Signal session the decryption moved.
    assert.ok(
      own.length <= 2 * MESSAGES,
      `${own.length} round trips for ${MESSAGES} messages:\n${own.join('\n')}`,
    )
    const stored = await call(core.apiBase, 'chat_messages', {
      instance_id: instanceId,
      number: ALICE,
      limit: 50,
    })
    assert.equal(stored.status, 200, JSON.stringify(stored.body))
    const kept = new Set((stored.body.messages as Array<{ id: string }>).map(({ id }) => id))
    for (const id of ids) assert.ok(kept.has(id), `${id} is stored`)
  })
})
