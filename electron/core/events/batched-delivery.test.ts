import assert from 'node:assert/strict'
import { type TestContext, test } from 'node:test'
import type { WebhookRecord } from '../store/settings-store'
import type { EventService } from './event-service'
import { eventFixture } from '../testing/event-fixture'
import { type ReceivedDelivery, WebhookReceiver, allDelivered, waitFor } from '../testing/webhook-receiver'
import { verifyWebhookSignature } from './webhook-signature'

/** A receiver whose first request waits `holdMs` before its answer, so that events queue up behind it. */
async function slowFirstReceiver(holdMs: number, status: (index: number) => number = () => 200) {
  return WebhookReceiver.start((_delivery, index) => ({
    status: status(index),
    ...(index === 0 && { delayMs: holdMs }),
  }))
}

/** An event service whose instance A has its webhook at `receiver`, taking batches of `batchSize`. */
async function batchedInstance(t: TestContext, receiver: WebhookReceiver, batchSize: number) {
  const fixture = await eventFixture()
  t.after(async () => {
    await fixture.close()
    await receiver.close()
  })
  const record = fixture.addInstance('A', receiver.url)
  fixture.instances.set('A', { ...record, webhook: { ...record.webhook, batchSize } })
  return fixture
}

/** Whether a received POST carries a valid signature of its body by this secret. */
function signedWith(secret: string, post: ReceivedDelivery): boolean {
  const header = (name: string) => String(post.headers[name])
  return verifyWebhookSignature(
    secret,
    header('x-linkdesk-timestamp'),
    post.body,
    header('x-linkdesk-signature'),
  )
}

/** Emits one event to instance A, waits until the receiver holds its post, then emits the rest behind it. */
async function emitBehindFirstPost(service: EventService, receiver: WebhookReceiver, count: number) {
  const first = service.emit('A', 'message.received', { n: 0 })
  await waitFor(() => receiver.received.length === 1)
  const rest = Array.from({ length: count - 1 }, (_, n) =>
    service.emit('A', 'message.received', { n: n + 1 }),
  )
  return [first, ...rest]
}

test('a webhook taking batches gets the events waiting behind a post in one signed POST, in order', async (t) => {
  const receiver = await slowFirstReceiver(300)
  const fixture = await batchedInstance(t, receiver, 4)
  const emitted = await emitBehindFirstPost(fixture.service, receiver, 7)

  await receiver.until(() => receiver.accepted().flatMap((post) => post.events).length === 7)
  await waitFor(() => allDelivered(fixture.service.reader, emitted))
  // The first event went alone (nothing waited yet); the six behind it went four, then two.
  assert.deepEqual(
    receiver.received.map((post) => post.events.length),
    [1, 4, 2],
  )
  assert.deepEqual(
    receiver.received.flatMap((post) => post.events.map((event) => event.event_id)),
    emitted.map((event) => event.event_id),
  )
  for (const post of receiver.received) {
    assert.ok(Array.isArray(JSON.parse(post.body)), 'a webhook taking batches always gets an array')
    assert.equal(post.headers['x-linkdesk-event'], 'batch')
    assert.equal(post.headers['x-linkdesk-event-id'], post.events.map((event) => event.event_id).join(','))
    assert.equal(post.headers['x-linkdesk-attempt'], '1')
    assert.ok(signedWith('whsec_test_A', post))
  }
  for (const event of emitted) {
    const stored = await fixture.service.reader.event(event.event_id)
    assert.equal(stored?.delivery.status, 'delivered')
    const attempts = (
      await fixture.service.reader.deliveries(
        { eventId: event.event_id, visible: () => true },
        { limit: 10, order: 'asc' },
      )
    ).items
    assert.deepEqual(
      attempts.map((attempt) => [attempt.attempt, attempt.outcome, attempt.status_code]),
      [[1, 'delivered', 200]],
      'one attempt record per event of the batch',
    )
  }
})

test('a failed batch is retried whole, with the same events, before anything behind it', async (t) => {
  // The first post holds while six events queue; the batch of four behind it fails twice, then succeeds.
  const receiver = await slowFirstReceiver(300, (index) => (index === 1 || index === 2 ? 503 : 200))
  const fixture = await batchedInstance(t, receiver, 4)
  const emitted = await emitBehindFirstPost(fixture.service, receiver, 7)
  // More events come while the batch is being retried: they wait behind it.
  await receiver.until(() => receiver.received.length === 2)
  const later = fixture.service.emit('A', 'message.received', { n: 7 })

  await waitFor(() => fixture.service.outboxDepth === 0)
  // The outcomes commit together with the outbox removal, a moment after the depth counts it.
  await waitFor(() => allDelivered(fixture.service.reader, emitted))
  const ids = (from: number, to: number) => emitted.slice(from, to).map((event) => event.event_id)
  assert.deepEqual(
    receiver.received.map((post) => [
      post.status,
      post.headers['x-linkdesk-attempt'],
      post.events.map((e) => e.event_id),
    ]),
    [
      [200, '1', ids(0, 1)],
      [503, '1', ids(1, 5)],
      [503, '2', ids(1, 5)],
      [200, '3', ids(1, 5)],
      [200, '1', [...ids(5, 7), later.event_id]],
    ],
  )
  const attempts = (
    await fixture.service.reader.deliveries(
      { eventId: emitted[3]!.event_id, visible: () => true },
      { limit: 10, order: 'asc' },
    )
  ).items
  assert.deepEqual(
    attempts.map((attempt) => [attempt.attempt, attempt.outcome, attempt.status_code]),
    [
      [1, 'retrying', 503],
      [2, 'retrying', 503],
      [3, 'delivered', 200],
    ],
  )
  assert.equal((await fixture.service.reader.event(emitted[3]!.event_id))?.delivery.attempts, 3)
})

test('an added webhook taking batches gets arrays while the instance’s own webhook gets one event per POST', async (t) => {
  const own = await slowFirstReceiver(200)
  const added = await slowFirstReceiver(200)
  const webhook: WebhookRecord = {
    id: 'wh_batched',
    ownerTokenId: 'token-1',
    instanceId: 'A',
    url: added.url,
    secret: 'whsec_batched',
    enable: true,
    events: [],
    batchSize: 10,
    createdAt: 0,
  }
  const fixture = await eventFixture(undefined, undefined, {
    webhooks: {
      find: (id) => (id === webhook.id ? webhook : undefined),
      targetsOf: (id) => (id === 'A' ? [webhook] : []),
      takes: (_webhook, id) => id === 'A',
    },
  })
  t.after(async () => {
    await fixture.close()
    await own.close()
    await added.close()
  })
  fixture.addInstance('A', own.url)
  const emitted = await emitBehindFirstPost(fixture.service, added, 5)

  await own.until(() => own.accepted().length === 5)
  await added.until(() => added.accepted().flatMap((post) => post.events).length === 5)
  assert.ok(own.received.every((post) => !Array.isArray(JSON.parse(post.body))))
  assert.deepEqual(
    added.received.map((post) => post.events.length),
    [1, 4],
  )
  assert.deepEqual(
    added.received.flatMap((post) => post.events.map((event) => event.event_id)),
    emitted.map((event) => event.event_id),
  )
  assert.ok(signedWith('whsec_batched', added.received[1]!))
})

test('a batch being retried when the batch size goes down to 1 goes on one event per POST, in order', async (t) => {
  // The first post holds while four events queue; their batch fails until the batch size is set to 1.
  let single = false
  const receiver = await slowFirstReceiver(300, (index) => (index === 0 || single ? 200 : 503))
  const fixture = await batchedInstance(t, receiver, 4)
  const emitted = await emitBehindFirstPost(fixture.service, receiver, 5)
  await receiver.until(() => receiver.received.length === 2)
  single = true
  await fixture.service.changeWebhook('A', ({ batchSize: _batchSize, ...webhook }) => webhook)
  // The change is announced (instance.updated): that event comes last.
  const changed = fixture.service.lastEventId() ?? ''

  await waitFor(() => fixture.service.outboxDepth === 0)
  await waitFor(
    async () => (await fixture.service.reader.event(emitted[1]!.event_id))?.delivery.status === 'delivered',
  )
  const posts = receiver.received.slice(2)
  assert.ok(
    posts.every((post) => !Array.isArray(JSON.parse(post.body))),
    'each POST after the change is one event',
  )
  assert.deepEqual(
    [receiver.received[0]!, ...posts].flatMap((post) => post.events.map((event) => event.event_id)),
    [...emitted.map((event) => event.event_id), changed],
    'every event, in order, once',
  )
})
