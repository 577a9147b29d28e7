import assert from 'node:assert/strict'
import { test } from 'node:test'
import { FAST_EVENT_SETTINGS, eventFixture } from '../testing/event-fixture'
import { WebhookReceiver, waitFor } from '../testing/webhook-receiver'
import { verifyWebhookSignature } from './webhook-signature'

test('a receiver that fails its first attempts then recovers gets each event once, in order, signed', async (t) => {
  const receiver = await WebhookReceiver.start((_delivery, index) => ({ status: index < 3 ? 503 : 200 }))
  const fixture = await eventFixture()
  t.after(async () => {
    await fixture.close()
    await receiver.close()
  })
  fixture.addInstance('A', receiver.url)
  const emitted = Array.from({ length: 20 }, (_, n) => fixture.service.emit('A', 'message.received', { n }))

  await receiver.until(() => receiver.accepted().length === emitted.length)
  const accepted = receiver.accepted()
  assert.deepEqual(
    accepted.map((delivery) => delivery.event.event_id),
    emitted.map((event) => event.event_id),
  )
  for (const delivery of accepted) {
    const timestamp = String(delivery.headers['x-linkdesk-timestamp'])
    const signature = String(delivery.headers['x-linkdesk-signature'])
    assert.ok(verifyWebhookSignature('whsec_test_A', timestamp, delivery.body, signature))
    assert.equal(delivery.headers['x-linkdesk-event'], 'message.received')
    assert.equal(delivery.headers['x-linkdesk-event-id'], delivery.event.event_id)
  }
  assert.equal(accepted[0]?.headers['x-linkdesk-attempt'], '4')
  assert.equal(accepted[1]?.headers['x-linkdesk-attempt'], '1')

  await waitFor(
    async () => (await fixture.service.reader.event(emitted[0]!.event_id))?.delivery.status === 'delivered',
  )
  const first = (await fixture.service.reader.event(emitted[0]!.event_id))!
  assert.equal(first.delivery.attempts, 4)
  await waitFor(() => fixture.service.outboxDepth === 0)
  const attempts = (
    await fixture.service.reader.deliveries(
      { eventId: emitted[0]!.event_id, visible: () => true },
      { limit: 10, order: 'asc' },
    )
  ).items
  assert.deepEqual(
    attempts.map((attempt) => [attempt.attempt, attempt.status_code, attempt.outcome]),
    [
      [1, 503, 'retrying'],
      [2, 503, 'retrying'],
      [3, 503, 'retrying'],
      [4, 200, 'delivered'],
    ],
  )
})

test('400 and 410 answers are not retried: the event is failed and the next one goes', async (t) => {
  const receiver = await WebhookReceiver.start((delivery) => ({ status: Number(delivery.event.data.answer) }))
  const fixture = await eventFixture()
  t.after(async () => {
    await fixture.close()
    await receiver.close()
  })
  fixture.addInstance('A', receiver.url)
  const bad = fixture.service.emit('A', 'message.sent', { answer: 400 })
  const gone = fixture.service.emit('A', 'message.sent', { answer: 410 })
  const good = fixture.service.emit('A', 'message.sent', { answer: 204 })

  await receiver.until(() => receiver.accepted().length === 1)
  assert.deepEqual(
    receiver.received.map((delivery) => [delivery.event.event_id, delivery.status]),
    [
      [bad.event_id, 400],
      [gone.event_id, 410],
      [good.event_id, 204],
    ],
  )
  await waitFor(async () => (await fixture.service.reader.event(gone.event_id))?.delivery.status === 'failed')
  assert.equal((await fixture.service.reader.event(bad.event_id))?.delivery.status, 'failed')
  assert.equal((await fixture.service.reader.event(gone.event_id))?.delivery.last_status_code, 410)
  assert.match((await fixture.service.reader.event(gone.event_id))?.delivery.last_error ?? '', /^HTTP 410/)
})

test('with the webhook off nothing is delivered, events are still logged as skipped and stay so when it is turned on', async (t) => {
  const receiver = await WebhookReceiver.start()
  const fixture = await eventFixture()
  t.after(async () => {
    await fixture.close()
    await receiver.close()
  })
  const record = fixture.addInstance('A', receiver.url, false)
  const off = fixture.service.emit('A', 'connection.update', { state: 'connected' })
  fixture.addInstance('B', null, true)
  const noUrl = fixture.service.emit('B', 'connection.update', { state: 'connected' })

  record.webhook.enable = true
  fixture.service.webhookChanged('A')
  const on = fixture.service.emit('A', 'connection.update', { state: 'disconnected' })
  await receiver.until(() => receiver.received.length === 1)
  assert.equal(receiver.received[0]?.event.event_id, on.event_id)
  await fixture.service.settled()
  assert.equal((await fixture.service.reader.event(off.event_id))?.delivery.status, 'skipped')
  assert.equal((await fixture.service.reader.event(noUrl.event_id))?.delivery.status, 'skipped')
  const logged = (await fixture.service.reader.events({ visible: () => true }, { limit: 10, order: 'asc' }))
    .items
  assert.deepEqual(
    logged.map((stored) => stored.envelope.event_id),
    [off.event_id, noUrl.event_id, on.event_id],
  )
})

test('events waiting for a retry are skipped when the webhook is turned off', async (t) => {
  const receiver = await WebhookReceiver.start(() => ({ status: 500 }))
  const fixture = await eventFixture({
    ...FAST_EVENT_SETTINGS,
    webhook: {
      timeoutMs: 5_000,
      backoffBaseMs: 60_000,
      backoffMaxMs: 60_000,
      maxAttempts: 5,
      maxAgeMs: 600_000,
    },
  })
  t.after(async () => {
    await fixture.close()
    await receiver.close()
  })
  const record = fixture.addInstance('A', receiver.url)
  const first = fixture.service.emit('A', 'message.received', {})
  const second = fixture.service.emit('A', 'message.received', {})
  await receiver.until(() => receiver.received.length === 1)
  record.webhook.enable = false
  fixture.service.webhookChanged('A')
  await waitFor(() => fixture.service.outboxDepth === 0)
  await waitFor(
    async () => (await fixture.service.reader.event(second.event_id))?.delivery.status === 'skipped',
  )
  assert.equal((await fixture.service.reader.event(first.event_id))?.delivery.status, 'skipped')
  assert.equal(receiver.received.length, 1)
})

test('a slow receiver does not hold back another instance', async (t) => {
  const slow = await WebhookReceiver.start(() => ({ status: 200, delayMs: 3_000 }))
  const fast = await WebhookReceiver.start()
  const fixture = await eventFixture()
  t.after(async () => {
    await fixture.close()
    await Promise.all([slow.close(), fast.close()])
  })
  fixture.addInstance('SLOW', slow.url)
  fixture.addInstance('FAST', fast.url)
  for (let n = 0; n < 5; n++) fixture.service.emit('SLOW', 'message.received', { n })
  for (let n = 0; n < 50; n++) fixture.service.emit('FAST', 'message.received', { n })
  await fast.until(() => fast.accepted().length === 50)
  assert.ok(slow.received.length <= 1, 'the slow receiver is still on its first event')
})

test('an event that keeps failing is marked failed after the maximum attempts and can be redelivered', async (t) => {
  let healthy = false
  const receiver = await WebhookReceiver.start(() => ({ status: healthy ? 200 : 502 }))
  const fixture = await eventFixture()
  t.after(async () => {
    await fixture.close()
    await receiver.close()
  })
  fixture.addInstance('A', receiver.url)
  const event = fixture.service.emit('A', 'message.status', { status: 'read' })
  await waitFor(
    async () => (await fixture.service.reader.event(event.event_id))?.delivery.status === 'failed',
  )
  assert.equal(receiver.received.length, 6)

  healthy = true
  assert.equal(await fixture.service.redeliverFailed('A'), 1)
  await receiver.until(() => receiver.accepted().length === 1)
  assert.equal(receiver.accepted()[0]?.event.event_id, event.event_id)
  assert.equal(receiver.accepted()[0]?.headers['x-linkdesk-attempt'], '1')
  await waitFor(
    async () => (await fixture.service.reader.event(event.event_id))?.delivery.status === 'delivered',
  )
})

test('network errors are retried until the receiver is reachable', async (t) => {
  const receiver = await WebhookReceiver.start()
  const url = receiver.url
  await receiver.close()
  const fixture = await eventFixture()
  t.after(() => fixture.close())
  fixture.addInstance('A', url)
  const event = fixture.service.emit('A', 'qr.update', { count: 1 })
  await waitFor(
    async () => ((await fixture.service.reader.event(event.event_id))?.delivery.attempts ?? 0) >= 2,
  )
  const stored = await fixture.service.reader.event(event.event_id)
  assert.equal(stored?.delivery.status, 'pending')
  assert.match(stored?.delivery.last_error ?? '', /network error/)
})

test('408 and 429 are retried, and Retry-After is honoured', async (t) => {
  const answers = [{ status: 408 }, { status: 429, headers: { 'retry-after': '1' } }, { status: 200 }]
  const receiver = await WebhookReceiver.start((_delivery, index) => answers[index] ?? { status: 200 })
  const fixture = await eventFixture()
  t.after(async () => {
    await fixture.close()
    await receiver.close()
  })
  fixture.addInstance('A', receiver.url)
  fixture.service.emit('A', 'message.received', {})
  await receiver.until(() => receiver.accepted().length === 1)
  const [, limited, accepted] = receiver.received
  assert.equal(limited?.status, 429)
  assert.ok(accepted!.at - limited!.at >= 950, `waited ${accepted!.at - limited!.at} ms after Retry-After: 1`)
})

test('a backlog larger than the memory queue is read from the outbox in pages, in order, while events keep coming', async (t) => {
  const receiver = await WebhookReceiver.start()
  const fixture = await eventFixture(FAST_EVENT_SETTINGS, undefined, { memoryQueue: 2 })
  t.after(async () => {
    await fixture.close()
    await receiver.close()
  })
  fixture.addInstance('A', receiver.url)
  const emitted: string[] = []
  for (let round = 0; round < 300; round++) {
    for (let n = 0; n < 3; n++)
      emitted.push(fixture.service.emit('A', 'message.received', { round, n }).event_id)
    await new Promise((resolve) => setImmediate(resolve))
  }
  await receiver.until(() => receiver.accepted().length >= emitted.length)
  assert.deepEqual(
    receiver.accepted().map((delivery) => delivery.event.event_id),
    emitted,
  )
})

test('an event emitted from a microtask while the worker winds down is still delivered', async (t) => {
  const receiver = await WebhookReceiver.start()
  const fixture = await eventFixture()
  t.after(async () => {
    await fixture.close()
    await receiver.close()
  })
  fixture.addInstance('A', receiver.url)
  for (let depth = 0; depth < 12; depth++) {
    const first = fixture.service.emit('A', 'message.received', { depth, first: true })
    const second = new Promise<string>((resolve) => {
      const off = fixture.service.live.subscribe((item) => {
        if (item.kind !== 'delivery' || item.attempt.event_id !== first.event_id) return
        off()
        let chain = Promise.resolve()
        for (let hop = 0; hop < depth; hop++) chain = chain.then(() => undefined)
        void chain.then(() => resolve(fixture.service.emit('A', 'message.received', { depth }).event_id))
      })
    })
    const id = await second
    await receiver.until(() => receiver.accepted().some((delivery) => delivery.event.event_id === id), 3_000)
  }
})
