import assert from 'node:assert/strict'
import { join } from 'node:path'
import { after, before, test } from 'node:test'
import { open, type RootDatabase } from 'lmdb'
import { ok, TOKEN } from '../../testing/instance-harness'
import { linkedCoreFixture } from '../../testing/linked-core'
import { waitFor, WebhookReceiver } from '../../testing/webhook-receiver'

const ME = '15550480001'
const ALICE = '15550480002'
const SENDS = 10
/**
 * LMDB transactions (each one disk flush) per sequential send with the webhook on, both environments (the
 * database and the Signal keys) together. Before deferrable commits shared other transactions: 9.7 (8.7 + 1).
 */
const MAX_COMMITS_PER_SEND = 5

// Deferred writes never go alone here: each rides in a transaction another write makes, so the count is
// that of the writes someone waits for, whatever the machine's load.
const linked = linkedCoreFixture(
  ME,
  [{ phone: ALICE, name: 'Alice' }],
  // LMDB's commits are what this counts, on every pass.
  { store: 'lmdb', timings: { deferredCommitMs: 600_000 } },
  async (control) => {
    await control.setBehaviour(ALICE, { reads: 'instantly' })
  },
)
let receiver: WebhookReceiver

before(async () => {
  receiver = await WebhookReceiver.start()
})

after(async () => {
  await receiver.close()
})

/** The id of the environment's last committed write transaction: it grows by one per commit. */
function lastTxnId(db: RootDatabase): number {
  return (db.getStats() as { lastTxnId: number }).lastTxnId
}

/** Sends one text and waits until the webhook has its four events, the last `read`; returns its id. */
async function sendAndWaitForRead(i: number): Promise<string> {
  const { status, body } = await linked.api('send_message', {
    number: ALICE,
    type: 'text',
    message: `hello ${i}`,
  })
  assert.equal(status, 200, JSON.stringify(body))
  const id = String(body.message.key.id)
  await waitFor(() =>
    receiver
      .accepted()
      .some(
        ({ event }) =>
          event.event === 'message.status' && event.data.id === id && event.data.status === 'read',
      ),
  )
  return id
}

test('a sequential send with a webhook commits at most 5 LMDB transactions, and every write it deferred is kept', async (t) => {
  const dataDir = linked.core.config.dataDir
  await ok(linked.core.apiBase, 'set_webhook', {
    instance_id: linked.instanceId,
    webhook_url: receiver.url,
    enable: true,
  })
  await sendAndWaitForRead(-1)
  const envs = [open({ path: join(dataDir, 'db') }), open({ path: join(dataDir, 'auth') })]
  const start = envs.map(lastTxnId)
  const ids: string[] = []
  for (let i = 0; i < SENDS; i++) ids.push(await sendAndWaitForRead(i))
  const [db, auth] = envs.map((env, i) => lastTxnId(env) - start[i]!)
  const perSend = (db! + auth!) / SENDS
  t.diagnostic(`LMDB commits per send: ${perSend} (database ${db! / SENDS}, Signal keys ${auth! / SENDS})`)
  assert.ok(perSend <= MAX_COMMITS_PER_SEND, `${perSend} commits per send`)

  for (const id of ids)
    assert.ok(
      linked.control.inbox(ALICE).some((entry) => entry.id === id),
      'in the inbox',
    )
  const sent = receiver.accepted().filter(({ event }) => ids.includes(String(event.data.id)))
  assert.equal(sent.length, SENDS * 4, 'message.sent and three statuses per send')

  // The receiver has the last POST before the app has read its answer: wait for the app to record every
  // outcome, then restart. Whatever was still deferred is committed by the close: after the restart nothing is
  // posted again and every event of the sends is stored as delivered.
  const eventsOfSends = async () => {
    const response = await fetch(
      `${linked.core.apiBase}/events?access_token=${TOKEN}&instance_id=${linked.instanceId}&limit=500`,
    )
    const { events } = (await response.json()) as {
      events: Array<{ event_id: string; data: { id?: string }; delivery: { status: string } }>
    }
    return events.filter((event) => ids.includes(String(event.data.id)))
  }
  await waitFor(
    async () => (await eventsOfSends()).every((event) => event.delivery.status === 'delivered'),
    30_000,
    'every event of the sends recorded as delivered',
  )
  await linked.restart()
  const ofSends = await eventsOfSends()
  assert.equal(ofSends.length, SENDS * 4)
  assert.deepEqual(new Set(ofSends.map((event) => event.delivery.status)), new Set(['delivered']))
  const posted = receiver.accepted().map(({ event }) => event.event_id)
  assert.equal(new Set(posted).size, posted.length, 'no event posted twice')
})
