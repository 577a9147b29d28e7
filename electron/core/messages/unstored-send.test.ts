import assert from 'node:assert/strict'
import { rmSync } from 'node:fs'
import { after, before, describe, test } from 'node:test'
import pg from 'pg'
import type { Core } from '../index'
import { call, startCore, tempDataDir } from '../testing/instance-harness'
import { eventually, linkedInstance, recordEvents } from '../testing/messaging-harness'
import { postgresMissing, type PostgresServer, startPostgres } from '../testing/postgres-server'

const ME = '15550420101'
const ALICE = '15550420102'

// The store really fails: PostgreSQL refuses every write of a sent message while the trigger is there.
const REFUSE = `
  CREATE FUNCTION refuse_sent() RETURNS trigger AS $$ BEGIN RAISE EXCEPTION 'no space left'; END $$ LANGUAGE plpgsql;
  CREATE TRIGGER refuse_sent BEFORE INSERT OR UPDATE ON messages
    FOR EACH ROW WHEN (NEW.direction = 'out') EXECUTE FUNCTION refuse_sent();`
const ALLOW = 'DROP TRIGGER refuse_sent ON messages; DROP FUNCTION refuse_sent();'

describe('a send whose message cannot be stored', { skip: postgresMissing() }, () => {
  let server: PostgresServer
  let url: string
  let dataDir: string
  let core: Core
  let instanceId: string
  let events: ReturnType<typeof recordEvents>

  before(async () => {
    server = await startPostgres()
    url = await server.createDatabase()
    dataDir = tempDataDir()
    core = await startCore({
      dataDir,
      sandbox: true,
      store: url,
      limits: { sendIntervalMs: 0, sendJitterMs: 0 },
    })
    events = recordEvents(core)
    await core.sandbox!.control.addAccount({ phone: ALICE, name: 'Alice' })
    instanceId = await linkedInstance(core, ME)
  })

  after(async () => {
    await core?.close()
    server?.stop()
    rmSync(dataDir, { recursive: true, force: true })
  })

  const send = (message: string, extra: Record<string, unknown> = {}) =>
    call(core.apiBase, 'send_message', {
      instance_id: instanceId,
      number: ALICE,
      type: 'text',
      message,
      ...extra,
    })
  const copies = (text: string) => core.sandbox!.control.inbox(ALICE).filter((entry) => entry.text === text)

  async function sql(statement: string) {
    const client = new pg.Client({ connectionString: url })
    await client.connect()
    try {
      await client.query(statement)
    } finally {
      await client.end()
    }
  }

  test('answers 503 and sends nothing; once the store works, a retry under its key sends it, once', async () => {
    const hello = await send('hello')
    assert.equal(hello.status, 200, JSON.stringify(hello.body))
    await sql(REFUSE)
    const text = 'not kept, not sent'
    const key = { idempotency_key: 'unstored-1' }
    const refused = await send(text, key)
    assert.equal(refused.status, 503, JSON.stringify(refused.body))
    assert.equal(refused.body.code, 'unavailable')
    assert.match(refused.body.message, /could not be stored/)
    await sql(ALLOW)
    // Sends to one chat leave in order on one link: once the next one is in the inbox, the refused one
    // would be there before it had it been sent.
    const next = await send('the next one')
    assert.equal(next.status, 200, JSON.stringify(next.body))
    await eventually(
      () => copies('the next one'),
      (found) => found.length === 1,
      'the next message',
    )
    assert.equal(copies(text).length, 0, 'the refused message never reached the contact')
    assert.ok(!events.seen.some((e) => e.event === 'message.sent' && e.data.text === text))

    const retry = await send(text, key)
    assert.equal(retry.status, 200, JSON.stringify(retry.body))
    const id = retry.body.message.key.id
    assert.deepEqual(
      copies(text).map((entry) => entry.id),
      [id],
    )
    const stored = await core.messages.store.get(instanceId, id)
    assert.equal(stored?.message.text, text)
  })
})
