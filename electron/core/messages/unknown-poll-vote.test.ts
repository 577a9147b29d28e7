import assert from 'node:assert/strict'
import { rmSync } from 'node:fs'
import { Writable } from 'node:stream'
import { test } from 'node:test'
import { createLogger } from '../logger'
import { ok, startCore, tempDataDir } from '../testing/instance-harness'
import { linkedInstance } from '../testing/messaging-harness'
import { WebhookReceiver } from '../testing/webhook-receiver'

const ME = '15550470001'
const ALICE = '15550470002'

test('a vote on a poll this instance never stored reaches the webhook as poll.vote with its options unknown, and is logged', async (t) => {
  const lines: Array<Record<string, unknown>> = []
  const logs = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const line of chunk.toString('utf8').split('\n')) if (line) lines.push(JSON.parse(line))
      done()
    },
  })
  const dataDir = tempDataDir()
  const core = await startCore(
    { dataDir, sandbox: true, limits: { sendIntervalMs: 0, sendJitterMs: 0 } },
    { logger: createLogger('warn', logs) },
  )
  const receiver = await WebhookReceiver.start()
  t.after(async () => {
    await core.close()
    await receiver.close()
    rmSync(dataDir, { recursive: true, force: true })
  })
  await core.sandbox!.control.addAccount({ phone: ALICE, name: 'Alice' })
  const instanceId = await linkedInstance(core, ME)
  await ok(core.apiBase, 'set_webhook', { instance_id: instanceId, webhook_url: receiver.url, enable: true })

  const pollId = '3EB0FFFFFFFFFFFFFFFF01'
  const { id } = await core.sandbox!.control.send(ALICE, {
    to: ME,
    vote: { id: pollId, options: ['Tuesday'], unknownPoll: true },
  })
  await receiver.until(() => receiver.accepted().some(({ event }) => event.event === 'poll.vote'))
  const posted = receiver.accepted().filter(({ event }) => event.event === 'poll.vote')
  assert.equal(posted.length, 1)
  const { data } = posted[0]!.event
  assert.equal(data.id, id)
  assert.equal(data.target_id, pollId)
  assert.equal(data.voter, `${ALICE}@s.whatsapp.net`)
  assert.equal(data.options, null, 'the options cannot be read without the poll')
  assert.equal(data.tally, null)

  const warning = lines.find(
    (line) => line.msg === 'a vote on a poll that is not stored: announced with its options unknown',
  )
  assert.ok(warning, 'the vote is logged')
  assert.equal(warning.level, 40)
  assert.equal(warning.instanceId, instanceId)
  assert.equal(warning.pollId, pollId)
  assert.equal(warning.messageId, id)
})
