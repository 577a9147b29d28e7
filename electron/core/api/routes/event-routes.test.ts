import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { SseReader } from '../../testing/sse-reader'
import { WebhookReceiver, allDelivered, waitFor } from '../../testing/webhook-receiver'
import { verifyWebhookSignature } from '../../events/webhook-signature'
import { startTestCore, TEST_TOKEN, type TestCore } from '../../testing/test-core'

const FAST = {
  webhook: { backoffBaseMs: 5, backoffMaxMs: 20, maxAttempts: 3, timeoutMs: 5_000 },
  stream: { heartbeatMs: 1_000 },
}

function assertError(answer: { status: number; body: any }, status: number, code: string): void {
  assert.equal(answer.status, status, JSON.stringify(answer.body))
  assert.equal(answer.body.status, 'error')
  assert.equal(answer.body.code, code)
  assert.ok(answer.body.message.length > 10)
}

describe('webhook and event operations over real HTTP', () => {
  let t: TestCore
  let receiver: WebhookReceiver
  let otherToken: string
  before(async () => {
    t = await startTestCore({ events: FAST })
    receiver = await WebhookReceiver.start()
    otherToken = (await t.core.tokens.create('other')).token
  })
  after(async () => {
    await t.stop()
    await receiver.close()
  })

  async function newInstance(token = TEST_TOKEN): Promise<string> {
    const { body } = await t.call(`/create_instance?access_token=${token}`)
    return body.instance_id
  }

  test('set_webhook answers the seed body for GET and JSON shapes, enable as strings or booleans', async () => {
    const id = await newInstance()
    const url = encodeURIComponent(receiver.url)
    const get = await t.call(
      `/set_webhook?access_token=${TEST_TOKEN}&instance_id=${id}&webhook_url=${url}&enable=true`,
    )
    assert.equal(get.status, 200)
    assert.deepEqual(Object.keys(get.body).sort(), ['message', 'status'])
    assert.equal(get.body.status, 'success')
    const post = await t.call('/set_webhook', {
      method: 'POST',
      json: { access_token: TEST_TOKEN, instance_id: id, webhook_url: receiver.url, enable: false },
    })
    assert.equal(post.body.status, 'success')
    const settings = await t.call(`/get_webhook?access_token=${TEST_TOKEN}&instance_id=${id}`)
    assert.equal(settings.body.webhook.url, receiver.url)
    assert.equal(settings.body.webhook.enable, false)
    assert.match(settings.body.webhook.secret, /^whsec_[A-Za-z0-9_-]{32}$/)
  })

  test('set_webhook with bad input answers the error envelope and changes nothing', async () => {
    const id = await newInstance()
    const base = { access_token: TEST_TOKEN, instance_id: id, webhook_url: receiver.url, enable: 'true' }
    const cases: Array<[Record<string, unknown>, number, string]> = [
      [{ ...base, webhook_url: undefined }, 400, 'missing_parameter'],
      [{ ...base, enable: undefined }, 400, 'missing_parameter'],
      [{ ...base, webhook_url: 'ftp://example.com/hook' }, 400, 'invalid_parameter'],
      [{ ...base, webhook_url: 'not a url' }, 400, 'invalid_parameter'],
      [{ ...base, webhook_url: 'javascript:alert(1)' }, 400, 'invalid_parameter'],
      [{ ...base, enable: 'yes' }, 400, 'invalid_parameter'],
      [{ ...base, enable: 1 }, 400, 'invalid_parameter'],
      [{ ...base, enable: 'TRUE ' }, 400, 'invalid_parameter'],
      [{ ...base, batch_size: 0 }, 400, 'invalid_parameter'],
      [{ ...base, batch_size: 101 }, 400, 'invalid_parameter'],
      [{ ...base, batch_size: 2.5 }, 400, 'invalid_parameter'],
      [{ ...base, batch_size: 'many' }, 400, 'invalid_parameter'],
      [{ ...base, instance_id: 'NOPE' }, 404, 'instance_not_found'],
      [{ ...base, access_token: otherToken }, 404, 'instance_not_found'],
      [{ ...base, access_token: 'unknown-token-123' }, 401, 'unauthorized'],
    ]
    for (const [json, status, code] of cases) {
      assertError(await t.call('/set_webhook', { method: 'POST', json }), status, code)
    }
    const settings = await t.call(`/get_webhook?access_token=${TEST_TOKEN}&instance_id=${id}`)
    assert.equal(settings.body.webhook.url, null)
    assert.equal(settings.body.webhook.enable, false)
    assert.equal(settings.body.webhook.batch_size, 1)
  })

  test('set_webhook takes a batch_size that get_webhook shows and a later set_webhook without it keeps; batches reach the receiver', async () => {
    const id = await newInstance()
    const url = encodeURIComponent(receiver.url)
    const set = (extra: string) =>
      t.call(
        `/set_webhook?access_token=${TEST_TOKEN}&instance_id=${id}&webhook_url=${url}&enable=true${extra}`,
      )
    const batchSize = async () =>
      (await t.call(`/get_webhook?access_token=${TEST_TOKEN}&instance_id=${id}`)).body.webhook.batch_size
    const answer = await set('&batch_size=50')
    assert.deepEqual(answer.body, { status: 'success', message: 'Webhook saved and enabled' })
    assert.equal(await batchSize(), 50)
    await set('')
    assert.equal(await batchSize(), 50, 'absent: unchanged')

    const before = receiver.received.length
    const tests = []
    for (let n = 0; n < 3; n += 1) {
      const { body } = await t.call(`/send_test_event?access_token=${TEST_TOKEN}&instance_id=${id}`)
      tests.push(body.event_id)
    }
    // Only the test events are counted: an earlier event of the instance (its creation, the webhook change)
    // may reach the receiver after `before` was read, once its commit is known.
    const testEvents = (posts: typeof receiver.received) =>
      posts.flatMap((post) => post.events.filter((event) => event.event === 'webhook.test'))
    await receiver.until(() => testEvents(receiver.received.slice(before)).length === tests.length)
    const posts = receiver.received.slice(before)
    assert.ok(
      posts.every((post) => Array.isArray(JSON.parse(post.body))),
      'every POST is an array',
    )
    assert.deepEqual(
      testEvents(posts).map((event) => event.event_id),
      tests,
    )

    await set('&batch_size=1')
    assert.equal(await batchSize(), 1)
    const { body } = await t.call(`/send_test_event?access_token=${TEST_TOKEN}&instance_id=${id}`)
    await receiver.until(() => receiver.received.some((post) => post.body.includes(body.event_id)))
    const single = receiver.received.find((post) => post.body.includes(body.event_id))
    assert.equal(JSON.parse(single!.body).event_id, body.event_id, 'batch_size 1: the event itself')
  })

  test('send_test_event delivers a signed webhook.test; a rotated secret signs the next ones', async () => {
    const id = await newInstance()
    await t.call('/set_webhook', {
      method: 'POST',
      json: { access_token: TEST_TOKEN, instance_id: id, webhook_url: receiver.url, enable: true },
    })
    const { body: first } = await t.call(`/send_test_event?access_token=${TEST_TOKEN}&instance_id=${id}`)
    assert.equal(first.status, 'success')
    await receiver.until(() =>
      receiver.received.some((delivery) => delivery.event.event_id === first.event_id),
    )
    const delivery = receiver.received.find((each) => each.event.event_id === first.event_id)!
    assert.equal(delivery.event.event, 'webhook.test')
    assert.equal(delivery.event.instance_id, id)
    assert.ok(!delivery.body.includes(TEST_TOKEN), 'no access token in the payload')
    const { body: settings } = await t.call(`/get_webhook?access_token=${TEST_TOKEN}&instance_id=${id}`)
    const headers = delivery.headers
    assert.ok(
      verifyWebhookSignature(
        settings.webhook.secret,
        String(headers['x-linkdesk-timestamp']),
        delivery.body,
        String(headers['x-linkdesk-signature']),
      ),
    )

    const { body: rotated } = await t.call(
      `/rotate_webhook_secret?access_token=${TEST_TOKEN}&instance_id=${id}`,
    )
    assert.notEqual(rotated.secret, settings.webhook.secret)
    const { body: second } = await t.call(`/send_test_event?access_token=${TEST_TOKEN}&instance_id=${id}`)
    await receiver.until(() => receiver.received.some((each) => each.event.event_id === second.event_id))
    const next = receiver.received.find((each) => each.event.event_id === second.event_id)!
    assert.ok(
      verifyWebhookSignature(
        rotated.secret,
        String(next.headers['x-linkdesk-timestamp']),
        next.body,
        String(next.headers['x-linkdesk-signature']),
      ),
    )
  })

  test('send_test_event on a webhook that is off is a conflict', async () => {
    const id = await newInstance()
    assertError(
      await t.call(`/send_test_event?access_token=${TEST_TOKEN}&instance_id=${id}`),
      409,
      'conflict',
    )
  })

  test('events and deliveries are paged, filtered, and hidden from other tokens', async () => {
    const id = await newInstance()
    await t.call('/set_webhook', {
      method: 'POST',
      json: { access_token: TEST_TOKEN, instance_id: id, webhook_url: receiver.url, enable: true },
    })
    const emitted = [0, 1, 2, 3, 4].map((n) =>
      t.core.events.emit(id, n % 2 ? 'message.sent' : 'message.received', { n }),
    )
    await waitFor(() => allDelivered(t.core.events.reader, emitted))

    const first = await t.call(`/events?access_token=${TEST_TOKEN}&instance_id=${id}&limit=2`)
    assert.deepEqual(
      first.body.events.map((e: any) => e.event_id),
      [emitted[4]!.event_id, emitted[3]!.event_id],
    )
    assert.equal(first.body.events[0].delivery.status, 'delivered')
    const second = await t.call(
      `/events?access_token=${TEST_TOKEN}&instance_id=${id}&limit=2&cursor=${first.body.next_cursor}`,
    )
    assert.deepEqual(
      second.body.events.map((e: any) => e.event_id),
      [emitted[2]!.event_id, emitted[1]!.event_id],
    )
    const received = await t.call(
      `/events?access_token=${TEST_TOKEN}&instance_id=${id}&event=message.received&order=asc`,
    )
    assert.deepEqual(
      received.body.events.map((e: any) => e.data.n),
      [0, 2, 4],
    )

    // From the instance's first event (instance.created), which may fall in an earlier second than the test's.
    const oldest = await t.call(`/events?access_token=${TEST_TOKEN}&instance_id=${id}&order=asc&limit=1`)
    const since = Number(oldest.body.events[0].timestamp)
    const inRange = await t.call(
      `/events?access_token=${TEST_TOKEN}&instance_id=${id}&since=${since}&until=${Number(emitted[4]!.timestamp)}`,
    )
    // Besides the test's events, the instance's own: instance.created and instance.updated (the webhook).
    assert.deepEqual(
      inRange.body.events.filter((e: any) => e.event.startsWith('message.')).map((e: any) => e.event_id),
      emitted.map((e) => e.event_id).reverse(),
    )
    assert.deepEqual(
      inRange.body.events.filter((e: any) => e.event.startsWith('instance.')).map((e: any) => e.event),
      ['instance.updated', 'instance.created'],
    )
    const before = await t.call(`/events?access_token=${TEST_TOKEN}&instance_id=${id}&until=${since - 1}`)
    assert.deepEqual(before.body.events, [])
    const attempts = await t.call(`/deliveries?access_token=${TEST_TOKEN}&event_id=${emitted[0]!.event_id}`)
    assert.equal(attempts.body.deliveries.length, 1)
    assert.equal(attempts.body.deliveries[0].status_code, 200)
    assert.equal(attempts.body.deliveries[0].outcome, 'delivered')
    const failedOnly = await t.call(`/deliveries?access_token=${TEST_TOKEN}&instance_id=${id}&outcome=failed`)
    assert.deepEqual(failedOnly.body.deliveries, [])

    assertError(
      await t.call(`/events?access_token=${otherToken}&instance_id=${id}`),
      404,
      'instance_not_found',
    )
    assertError(
      await t.call(`/deliveries?access_token=${otherToken}&instance_id=${id}`),
      404,
      'instance_not_found',
    )
    const theirs = await t.call(`/events?access_token=${otherToken}&limit=500`)
    assert.ok(theirs.body.events.every((e: any) => e.instance_id !== id))
    const theirAttempts = await t.call(
      `/deliveries?access_token=${otherToken}&event_id=${emitted[0]!.event_id}`,
    )
    assert.deepEqual(theirAttempts.body.deliveries, [])
    assertError(await t.call(`/events?access_token=${TEST_TOKEN}&cursor=nope`), 400, 'invalid_parameter')
    assertError(
      await t.call(`/events?access_token=${TEST_TOKEN}&event=message.nope`),
      400,
      'invalid_parameter',
    )
  })

  test('redeliver sends one event again, redeliver_failed all failed ones', async () => {
    let refuse = true
    const picky = await WebhookReceiver.start(() => ({ status: refuse ? 400 : 200 }))
    after(() => picky.close())
    const id = await newInstance()
    await t.call('/set_webhook', {
      method: 'POST',
      json: { access_token: TEST_TOKEN, instance_id: id, webhook_url: picky.url, enable: true },
    })
    const a = t.core.events.emit(id, 'message.received', { n: 1 })
    const b = t.core.events.emit(id, 'message.received', { n: 2 })
    await waitFor(async () => (await t.core.events.reader.event(b.event_id))?.delivery.status === 'failed')
    refuse = false

    const one = await t.call(`/redeliver?access_token=${TEST_TOKEN}&instance_id=${id}&event_id=${a.event_id}`)
    assert.equal(one.body.status, 'success')
    await picky.until(() => picky.accepted().length === 1)
    assert.equal(picky.accepted()[0]?.event.event_id, a.event_id)

    // The failed ones: b, and the instance.updated that announced the new webhook to it.
    const all = await t.call(`/redeliver_failed?access_token=${TEST_TOKEN}&instance_id=${id}`)
    assert.equal(all.body.count, 2)
    await picky.until(() => picky.accepted().length === 3)
    assert.deepEqual(
      picky
        .accepted()
        .slice(1)
        .map((delivery) => delivery.event.event),
      ['instance.updated', 'message.received'],
    )
    assert.equal(picky.accepted()[2]?.event.event_id, b.event_id)

    assertError(
      await t.call(`/redeliver?access_token=${otherToken}&instance_id=${id}&event_id=${a.event_id}`),
      404,
      'instance_not_found',
    )
    const otherId = await newInstance()
    assertError(
      await t.call(`/redeliver?access_token=${TEST_TOKEN}&instance_id=${otherId}&event_id=${a.event_id}`),
      404,
      'event_not_found',
    )
  })

  test('the live stream resumes after a given id and shows a token with a chosen reach only its own instances', async () => {
    const mine = await newInstance(otherToken)
    const theirs = await newInstance()
    const before = [1, 2, 3].map((n) => t.core.events.emit(mine, 'message.received', { n }))
    t.core.events.emit(theirs, 'message.received', { n: 'theirs' })

    const response = await fetch(`${t.base}/stream?access_token=${otherToken}`, {
      headers: { 'last-event-id': before[0]!.event_id },
    })
    assert.equal(response.status, 200)
    assert.match(response.headers.get('content-type') ?? '', /^text\/event-stream/)
    const stream = new SseReader(response)
    after(() => stream.close())
    await stream.until(2)
    const live = t.core.events.emit(mine, 'connection.update', { state: 'connected' })
    t.core.events.emit(theirs, 'connection.update', { state: 'connected' })
    const last = t.core.events.emit(mine, 'message.sent', { n: 4 })
    const frames = await stream.until(4)
    assert.deepEqual(
      frames.map((frame) => frame.id),
      [before[1]!.event_id, before[2]!.event_id, live.event_id, last.event_id],
    )
    assert.deepEqual(JSON.parse(frames[2]!.data), live)

    const filtered = await fetch(
      `${t.base}/stream?access_token=${TEST_TOKEN}&instance_id=${mine}&event=message.sent&last_event_id=${before[0]!.event_id}`,
    )
    const onlySent = new SseReader(filtered)
    after(() => onlySent.close())
    assert.deepEqual(
      (await onlySent.until(1)).map((frame) => frame.id),
      [last.event_id],
    )
    const denied = await fetch(`${t.base}/stream?access_token=${otherToken}&instance_id=${theirs}`)
    assert.equal(denied.status, 404)
    assert.equal((await denied.json()).code, 'instance_not_found')
    assert.equal((await fetch(`${t.base}/stream`)).status, 401)
  })

  test('metrics answer the Prometheus text format, with a token only', async () => {
    assert.equal((await t.call('/metrics')).status, 401)
    const response = await fetch(`${t.base}/metrics?access_token=${TEST_TOKEN}`)
    assert.equal(response.status, 200)
    assert.match(response.headers.get('content-type') ?? '', /^text\/plain; version=0\.0\.4/)
    const text = await response.text()
    assert.match(text, /^# TYPE linkdesk_webhook_deliveries_total counter$/m)
    assert.match(text, /^linkdesk_webhook_deliveries_total\{outcome="delivered"\} \d+$/m)
    assert.match(text, /^linkdesk_webhook_outbox_depth \d+$/m)
    assert.match(text, /^linkdesk_events_total\{event="webhook.test"\} \d+$/m)
    assert.equal(
      (await fetch(`${t.base}/metrics`, { headers: { authorization: `Bearer ${TEST_TOKEN}` } })).status,
      200,
    )
  })
})

test('closing the core ends open live streams instead of waiting for them', async () => {
  const t = await startTestCore({ events: FAST })
  const response = await fetch(`${t.base}/stream?access_token=${TEST_TOKEN}`)
  const stream = new SseReader(response)
  const id = await (await t.call(`/create_instance?access_token=${TEST_TOKEN}`)).body.instance_id
  t.core.events.emit(id, 'connection.update', { state: 'connecting' })
  const frames = await stream.until(2)
  assert.deepEqual(
    frames.map((frame) => JSON.parse(frame.data).event),
    ['instance.created', 'connection.update'],
  )
  await t.stop()
  await assert.rejects(stream.until(3, 5_000), /stream ended/)
})
