import assert from 'node:assert/strict'
import { rmSync } from 'node:fs'
import { after, before, test } from 'node:test'
import type { Core } from '../index'
import { startCore, tempDataDir } from '../testing/instance-harness'
import { eventually, linkedInstance, TOKEN } from '../testing/messaging-harness'

const ME = '15550400001'
const ALICE = '15550400002'
const INTERVAL_MS = 400

let core: Core
let dataDir: string
let instanceId: string
/** When each message left (its message.sent event, emitted as the send returns), by message id. */
const leftAt = new Map<string, number>()

before(async () => {
  dataDir = tempDataDir()
  // The sends are timed by their message.sent on the live stream, which on a shared store (PostgreSQL) comes
  // when the commit is read back from the log, not when the message left: pacing is timed on LMDB.
  core = await startCore({
    dataDir,
    store: 'lmdb',
    sandbox: true,
    limits: { sendIntervalMs: INTERVAL_MS, sendJitterMs: 0, sendQueueMax: 1 },
  })
  await core.sandbox!.control.addAccount({ phone: ALICE, name: 'Alice' })
  instanceId = await linkedInstance(core, ME)
  core.events.live.subscribe((item) => {
    const { envelope } = item.kind === 'event' ? item.stored : { envelope: undefined }
    if (envelope?.event === 'message.sent') leftAt.set(String(envelope.data.id), Date.now())
  })
})

after(async () => {
  await core.close()
  rmSync(dataDir, { recursive: true, force: true })
})

async function timedSend(message: string, extra: Record<string, string> = {}) {
  const response = await fetch(`${core.apiBase}/send_message`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      access_token: TOKEN,
      instance_id: instanceId,
      number: ALICE,
      type: 'text',
      message,
      ...extra,
    }),
  })
  return {
    status: response.status,
    retryAfter: response.headers.get('retry-after'),
    body: await response.json(),
    at: Date.now(),
  }
}

test('sends are spaced by the pacing interval, and a full queue answers 429 with Retry-After', async () => {
  // One send runs (or sits out the interval) and one may wait: of three at once, one is refused.
  const answers = await Promise.all(['one', 'two', 'three'].map((text) => timedSend(text)))
  const refused = answers.filter((a) => a.status === 429)
  const sent = answers.filter((a) => a.status === 200).sort((a, b) => a.at - b.at)
  assert.equal(refused.length, 1, JSON.stringify(answers.map((a) => a.body)))
  assert.equal(refused[0]?.body.code, 'rate_limited')
  assert.ok(Number(refused[0]?.retryAfter) >= 1)
  assert.equal(sent.length, 2)
  // Pacing spaces the sends themselves; the answers also wait for the network's acks, whose delays vary.
  const [first, second] = sent.map((answer) => leftAt.get(answer.body.message.key.id) ?? NaN)
  const gap = (second ?? NaN) - (first ?? NaN)
  assert.ok(gap >= INTERVAL_MS - 50, `the second message left ${gap} ms after the first`)
  const texts = await eventually(
    () => core.sandbox!.control.inbox(ALICE).map((e) => e.text),
    (found) => found.length === 2,
    'two texts',
  )
  assert.deepEqual(
    texts,
    sent.map((a) => a.body.message.message.extendedTextMessage.text),
  )
})
