import assert from 'node:assert/strict'
import { rmSync } from 'node:fs'
import { after, before, describe, test } from 'node:test'
import type { Core } from '../../index'
import type { LinkdeskEvent } from '../../contract/events'
import { inboxEntry } from '@linkdesk/sandbox/testing'
import { call, startCore, tempDataDir } from '../../testing/instance-harness'
import { linkedInstance, recordEvents } from '../../testing/messaging-harness'
import { postgresMissing, startPostgres, type PostgresServer } from '../../testing/postgres-server'
import { queriesDuring, SIGNALLING } from '../../testing/postgres-queries'

// Round trips to PostgreSQL per incoming message, counted at pg's client on the app's own database: a count,
// whatever the machine's load.
const ME = '15550720001'
const ALICE = '15550720002'
const MESSAGES = 20

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
    // The hello's key writes wait for its event and commit after it: counted with the hello, not the messages.
    await core.authStore.forInstance(instanceId).committed()
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
    const texts = queries.map(({ text }) => text)
    for (const id of ids) {
      const writing = texts.filter((text) => text.includes('INSERT INTO messages') && text.includes(id))
      assert.equal(writing.length, 1, `one round trip stores ${id}`)
      assert.match(writing[0]!, /INSERT INTO events/, `${id} is stored in its event's commit`)
    }
    const own = texts.filter((text) => !SIGNALLING.test(text))
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

  test('a read receipt of a sent message reads the message once and records its status', async () => {
    const sent = await call(core.apiBase, 'send_message', {
      instance_id: instanceId,
      number: ALICE,
      type: 'text',
      message: 'read me',
    })
    assert.equal(sent.status, 200, JSON.stringify(sent.body))
    const id = sent.body.message.key.id as string
    const status = (name: string) =>
      events.waitFor(
        (event) => event.event === 'message.status' && event.data.id === id && event.data.status === name,
        name,
      )
    await status('delivered')
    await core.events.settled()
    const queries = await queriesDuring(database, async () => {
      core.sandbox!.control.read(ALICE, [id])
      await status('read')
      await core.events.settled()
    })
    const naming = queries.filter(({ values }) => values.includes(id)).map(({ text }) => text)
    const reads = naming.filter((text) => /^SELECT record, content, read FROM messages/.test(text))
    const statuses = naming.filter((text) => text.includes('INSERT INTO message_statuses'))
    assert.equal(statuses.length, 1, naming.join('\n'))
    assert.equal(reads.length, 1, `the message is read once for its receipt:\n${naming.join('\n')}`)
    assert.equal(await core.messages.store.statusOf(instanceId, id), 'read')
  })

  test('a vote on a stored poll reads the poll once: the mapping hands the intake what it read', async () => {
    const sent = await call(core.apiBase, 'send_poll', {
      instance_id: instanceId,
      number: ALICE,
      question: 'Which day?',
      options: ['Monday', 'Tuesday'],
    })
    assert.equal(sent.status, 200, JSON.stringify(sent.body))
    const pollId = sent.body.message.key.id as string
    await inboxEntry(core.sandbox!, ALICE, pollId)
    await core.events.settled()
    let vote: LinkdeskEvent | undefined
    const queries = await queriesDuring(database, async () => {
      const { id } = await core.sandbox!.control.send(ALICE, {
        to: ME,
        vote: { id: pollId, options: ['Tuesday'] },
      })
      vote = await events.waitFor((event) => event.event === 'poll.vote' && event.data.id === id, 'vote')
      await core.events.settled()
    })
    assert.deepEqual(vote?.data.options, ['Tuesday'])
    assert.deepEqual(
      (vote?.data.tally as Array<{ option: string; votes: number }>).map(({ option, votes }) => [
        option,
        votes,
      ]),
      [
        ['Monday', 0],
        ['Tuesday', 1],
      ],
    )
    const reads = queries.filter(
      ({ text, values }) => text.startsWith('SELECT content FROM messages') && values.includes(pollId),
    )
    assert.equal(reads.length, 1, 'the poll is read once for the vote')
  })
})
