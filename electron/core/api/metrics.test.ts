import assert from 'node:assert/strict'
import { rmSync } from 'node:fs'
import { test } from 'node:test'
import { startCore, tempDataDir, TOKEN } from '../testing/instance-harness'
import { linkedInstance } from '../testing/messaging-harness'

const ME = '15550400001'
const ALICE = '15550400002'

function sample(text: string, series: string): number | undefined {
  const line = text.split('\n').find((row) => row.startsWith(`${series} `))
  return line === undefined ? undefined : Number(line.slice(series.length + 1))
}

test('metrics count instances by state and messages sent and received, in Prometheus text behind the token', async () => {
  const dataDir = tempDataDir()
  const core = await startCore({ dataDir, sandbox: true, limits: { sendIntervalMs: 0, sendJitterMs: 0 } })
  try {
    await core.sandbox!.control.addAccount({ phone: ALICE, autoReply: 'echo' })
    const instanceId = await linkedInstance(core, ME)
    await fetch(`${core.apiBase}/create_instance?access_token=${TOKEN}`)

    const denied = await fetch(`${core.apiBase}/metrics`)
    assert.equal(denied.status, 401)

    const sent = await fetch(`${core.apiBase}/send_message`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${TOKEN}` },
      body: JSON.stringify({ instance_id: instanceId, number: ALICE, type: 'text', message: 'ping' }),
    })
    assert.equal(sent.status, 200)

    // The contact's echo reply arrives after the send answered; poll until it is counted.
    let text = ''
    for (const deadline = Date.now() + 10_000; Date.now() < deadline;) {
      const response = await fetch(`${core.apiBase}/metrics`, {
        headers: { authorization: `Bearer ${TOKEN}` },
      })
      assert.equal(response.status, 200)
      assert.match(response.headers.get('content-type') ?? '', /text\/plain/)
      text = await response.text()
      if ((sample(text, 'linkdesk_messages_received_total') ?? 0) >= 1) break
      await new Promise((resolve) => setTimeout(resolve, 50))
    }

    assert.equal(sample(text, 'linkdesk_instances{state="connected"}'), 1)
    assert.equal(sample(text, 'linkdesk_instances{state="idle"}'), 1)
    assert.equal(sample(text, 'linkdesk_instances{state="logged_out"}'), 0)
    assert.equal(sample(text, 'linkdesk_messages_sent_total'), 1)
    assert.equal(sample(text, 'linkdesk_messages_received_total'), 1)
    assert.equal(sample(text, 'linkdesk_send_queue_depth'), 0)
    assert.match(text, /# TYPE linkdesk_webhook_outbox_depth gauge/)

    // The event loop held up for 300 ms shows as its delay's maximum at the next scrape, and only at that one.
    const scrape = async () =>
      (await fetch(`${core.apiBase}/metrics`, { headers: { authorization: `Bearer ${TOKEN}` } })).text()
    await scrape()
    const blockedUntil = Date.now() + 300
    while (Date.now() < blockedUntil);
    const blocked = sample(await scrape(), 'linkdesk_event_loop_delay_seconds{quantile="1"}') ?? 0
    assert.ok(blocked >= 0.25, `a 300 ms block shows (${blocked} s)`)
    const after = sample(await scrape(), 'linkdesk_event_loop_delay_seconds{quantile="1"}') ?? Infinity
    assert.ok(after < blocked, `each scrape reports the delay since the one before (${after} s)`)
  } finally {
    await core.close()
    rmSync(dataDir, { recursive: true, force: true })
  }
})
