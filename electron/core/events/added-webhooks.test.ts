import assert from 'node:assert/strict'
import { after, before, test } from 'node:test'
import { call, ok } from '../testing/instance-harness'
import { linkedCoreFixture } from '../testing/linked-core'
import { WebhookReceiver } from '../testing/webhook-receiver'
import { WEBHOOK_HEADERS, verifyWebhookSignature } from './webhook-signature'

const ME = '15550650001'
const ALICE = '15550650002'

const linked = linkedCoreFixture(ME, [{ phone: ALICE, name: 'Alice' }], {
  // Few attempts: the failing webhook's queue moves on past each event (its own add_webhook's instance.updated
  // first) soon enough for the next to reach it.
  events: { webhook: { backoffBaseMs: 200, backoffMaxMs: 400, maxAttempts: 3 } },
})

let messages: WebhookReceiver
let failing: WebhookReceiver
let global: WebhookReceiver
let otherToken: string

before(async () => {
  messages = await WebhookReceiver.start()
  failing = await WebhookReceiver.start(() => ({ status: 500 }))
  global = await WebhookReceiver.start()
})

after(async () => {
  await Promise.all([messages.close(), failing.close(), global.close()])
})

const names = (receiver: WebhookReceiver) => receiver.accepted().map((delivery) => delivery.event.event)

async function fromAlice(text: string): Promise<string> {
  const { id } = await linked.control.send(ALICE, { to: ME, text })
  await linked.events.waitFor((event) => event.event === 'message.received' && event.data.id === id, text)
  return id
}

let messagesHook: { webhook_id: string; secret: string }
let failingHook: { webhook_id: string }
let globalHook: { webhook_id: string }

test('two webhooks of one instance receive exactly the events of their filters, signed with their own secrets', async () => {
  otherToken = (await linked.core.tokens.create('another script')).token
  messagesHook = (await linked.api('add_webhook', { url: messages.url, events: ['message.*'] })).body.webhook
  const added = await linked.api('add_webhook', { url: failing.url, events: 'instance.updated,group.*' })
  assert.equal(added.status, 200, JSON.stringify(added.body))
  failingHook = added.body.webhook
  assert.deepEqual(added.body.webhook.events, ['instance.updated', 'group.*'])
  const { instance } = (await linked.api('instance')).body
  assert.deepEqual(
    instance.webhooks.map((webhook: Record<string, unknown>) => Object.keys(webhook).sort()),
    [
      ['enable', 'events', 'url', 'webhook_id'],
      ['enable', 'events', 'url', 'webhook_id'],
    ],
    'the instance answers show its webhooks, never their secrets',
  )
  const listed = await linked.api('webhooks')
  assert.deepEqual(
    listed.body.webhooks.map((webhook: { url: string }) => webhook.url),
    [messages.url, failing.url],
  )

  const id = await fromAlice('for the CRM')
  await messages.until(() => messages.accepted().some((d) => (d.event.data as any).id === id))
  await linked.api('update_instance', { name: 'Sales' })
  const isRename = (d: (typeof failing.received)[number]) =>
    d.event.event === 'instance.updated' && (d.event.data as any).changed.includes('name')
  await failing.until(() => failing.received.some(isRename))
  const renamed = failing.received.find(isRename)!
  assert.equal(renamed.event.instance_name, 'Sales', 'the envelope names the instance')
  assert.ok(
    names(messages).every((name) => name.startsWith('message.')),
    JSON.stringify(names(messages)),
  )
  assert.ok(
    failing.received.every((d) => d.event.event === 'instance.updated'),
    JSON.stringify(failing.received.map((d) => d.event.event)),
  )
  const delivery = messages.accepted().find((d) => (d.event.data as any).id === id)!
  const timestamp = String(delivery.headers[WEBHOOK_HEADERS.timestamp])
  const signature = String(delivery.headers[WEBHOOK_HEADERS.signature])
  assert.ok(verifyWebhookSignature(messagesHook.secret, timestamp, delivery.body, signature))
})

test('a failing webhook retries on its own queue and never delays another', async () => {
  const retriedBefore = failing.received.length
  const sent = [await fromAlice('one'), await fromAlice('two'), await fromAlice('three')]
  await messages.until(() =>
    sent.every((id) => messages.accepted().some((d) => (d.event.data as any).id === id)),
  )
  await failing.until(() => failing.received.length > retriedBefore + 1)
  assert.ok(failing.accepted().length === 0, 'the failing receiver never accepted anything')
  const deliveries = await linked.api('deliveries', { webhook_id: failingHook.webhook_id })
  assert.equal(deliveries.status, 200, JSON.stringify(deliveries.body))
  assert.ok(deliveries.body.deliveries.length > 1)
  assert.ok(
    deliveries.body.deliveries.every(
      (d: any) =>
        d.webhook_id === failingHook.webhook_id &&
        ['retrying', 'failed'].includes(d.outcome) &&
        d.status_code === 500,
    ),
  )
  // Switched off, what it had waiting is dropped.
  const off = await linked.api('update_webhook', { webhook_id: failingHook.webhook_id, enable: false })
  assert.equal(off.body.webhook.enable, false)
})

test('a webhook’s attempts are listed apart, and one event is delivered to it again on request', async () => {
  const { body } = await linked.api('deliveries', { webhook_id: messagesHook.webhook_id })
  const [latest] = body.deliveries
  assert.equal(latest.webhook_id, messagesHook.webhook_id)
  assert.equal(latest.url, messages.url)
  const before = messages.accepted().filter((d) => d.event.event_id === latest.event_id).length
  const again = await linked.api('redeliver', {
    event_id: latest.event_id,
    webhook_id: messagesHook.webhook_id,
  })
  assert.equal(again.status, 200, JSON.stringify(again.body))
  await messages.until(
    () => messages.accepted().filter((d) => d.event.event_id === latest.event_id).length > before,
  )
})

test('redeliver_failed with a webhook_id delivers again to that webhook only the events its receiver refused', async () => {
  const refusing = await WebhookReceiver.start(() => ({ status: 400 }))
  try {
    const { webhook } = (await linked.api('add_webhook', { url: refusing.url, events: ['message.received'] }))
      .body
    const sent = [await fromAlice('refused one'), await fromAlice('refused two')]
    const idsOf = (receiver: WebhookReceiver) =>
      receiver.received.map((d) => (d.event.data as any).id).filter((id) => sent.includes(id))
    await refusing.until(() => idsOf(refusing).length === 2)
    const attempts = async () =>
      (await linked.api('deliveries', { webhook_id: webhook.webhook_id })).body.deliveries as any[]
    for (;;) {
      const failed = (await attempts()).filter((d) => d.outcome === 'failed' && d.url === refusing.url)
      if (failed.length === 2) break
      await new Promise((resolve) => setTimeout(resolve, 50))
    }
    const unknown = await linked.api('redeliver_failed', { webhook_id: 'wh_unknown' })
    assert.equal(unknown.status, 404)
    assert.equal(unknown.body.code, 'webhook_not_found')
    const otherBefore = messages.accepted().length

    refusing.respond = () => ({ status: 200 })
    const again = await linked.api('redeliver_failed', { webhook_id: webhook.webhook_id })
    assert.equal(again.status, 200, JSON.stringify(again.body))
    assert.equal(again.body.count, 2)
    assert.equal(again.body.message, '2 failed events queued for delivery')
    await refusing.until(() =>
      sent.every((id) => refusing.accepted().some((d) => (d.event.data as any).id === id)),
    )
    const order = refusing.accepted().map((d) => (d.event.data as any).id)
    assert.deepEqual(order, sent, 'oldest first')
    const none = await linked.api('redeliver_failed', { webhook_id: webhook.webhook_id })
    assert.equal(none.body.count, 0, 'what was delivered is not queued again')
    assert.equal(messages.accepted().length, otherBefore, 'the other webhook got nothing again')
    await linked.api('remove_webhook', { webhook_id: webhook.webhook_id })
  } finally {
    await refusing.close()
  }
})

test('a global webhook receives the events of every instance its token reaches: for LINKDESK_ACCESS_TOKEN, all of them', async () => {
  const added = await call(linked.core.apiBase, 'add_webhook', { url: global.url, events: ['instance.*'] })
  assert.equal(added.status, 200, JSON.stringify(added.body))
  globalHook = added.body.webhook
  assert.equal(globalHook && added.body.webhook.instance_id, null)
  const mine = (await ok(linked.core.apiBase, 'create_instance', { name: 'Second' })).instance_id
  const theirs = (await ok(linked.core.apiBase, 'create_instance', { access_token: otherToken })).instance_id
  await linked.api('update_instance', { name: 'Sales desk' })
  await global.until(() => {
    const seen = global.accepted().map((d) => d.event.instance_id)
    return seen.includes(mine) && seen.includes(linked.instanceId) && seen.includes(theirs)
  })
  assert.ok(global.accepted().every((d) => d.event.event.startsWith('instance.')))
  const listed = await call(linked.core.apiBase, 'webhooks', {})
  assert.deepEqual(
    listed.body.webhooks.map((w: any) => w.webhook_id),
    [globalHook.webhook_id],
  )
  const hidden = await call(linked.core.apiBase, 'webhooks', { access_token: otherToken })
  assert.deepEqual(hidden.body.webhooks, [], 'another token sees none of them')
})

test('bad input changes nothing: unknown event names, duplicate URLs, bad URLs, other tokens’ webhooks', async () => {
  const before = (await linked.api('webhooks')).body.webhooks
  const cases: Array<[string, Record<string, unknown>, number, string, RegExp]> = [
    [
      'add_webhook',
      { url: 'http://127.0.0.1:9/x', events: ['message.recieved'] },
      400,
      'invalid_parameter',
      /message\.recieved/,
    ],
    [
      'add_webhook',
      { url: 'http://127.0.0.1:9/x', events: ['nothing.*'] },
      400,
      'invalid_parameter',
      /nothing/,
    ],
    ['add_webhook', { url: messages.url }, 409, 'conflict', /already/],
    ['add_webhook', { url: 'ftp://127.0.0.1/x' }, 400, 'invalid_parameter', /url/],
    ['update_webhook', { webhook_id: messagesHook.webhook_id, url: failing.url }, 409, 'conflict', /already/],
    ['update_webhook', { webhook_id: 'wh_unknown' }, 404, 'webhook_not_found', /webhook/],
    ['add_webhook', { url: 'http://127.0.0.1:9/x', batch_size: 0 }, 400, 'invalid_parameter', /batch_size/],
    [
      'update_webhook',
      { webhook_id: messagesHook.webhook_id, batch_size: 101 },
      400,
      'invalid_parameter',
      /batch_size/,
    ],
    [
      'redeliver',
      { event_id: '01JD5Q3R8M6W2V9T0K4N7XH1CZ', webhook_id: messagesHook.webhook_id },
      404,
      'event_not_found',
      /event/,
    ],
  ]
  for (const [operation, params, status, code, message] of cases) {
    const answer = await linked.api(operation, params)
    assert.equal(answer.status, status, `${operation} ${JSON.stringify([params, answer.body])}`)
    assert.equal(answer.body.code, code, operation)
    assert.match(answer.body.message, message, operation)
  }
  const foreign = await call(linked.core.apiBase, 'remove_webhook', {
    access_token: otherToken,
    webhook_id: messagesHook.webhook_id,
  })
  assert.equal(foreign.status, 404)
  assert.deepEqual((await linked.api('webhooks')).body.webhooks, before, 'nothing changed')
})

test('update_webhook switches a webhook to batches: its POSTs then carry arrays of events, in order', async () => {
  const updated = await linked.api('update_webhook', { webhook_id: messagesHook.webhook_id, batch_size: 20 })
  assert.equal(updated.status, 200, JSON.stringify(updated.body))
  assert.equal(updated.body.webhook.batch_size, 20)
  const before = messages.received.length
  const ids = [await fromAlice('batched one'), await fromAlice('batched two')]
  await messages.until(() =>
    messages.received.slice(before).some((post) => post.events.some((event) => event.data.id === ids[1])),
  )
  const posts = messages.received.slice(before)
  assert.ok(posts.every((post) => post.headers[WEBHOOK_HEADERS.event] === 'batch'))
  assert.deepEqual(
    posts.flatMap((post) => post.events.filter((e) => e.event === 'message.received').map((e) => e.data.id)),
    ids,
  )
})

test('webhooks are kept across a restart, and a removed one gets nothing more', async () => {
  await linked.restart()
  const { body } = await linked.api('webhooks')
  assert.deepEqual(
    body.webhooks.map((w: any) => [w.url, w.enable, w.events, w.batch_size]),
    [
      [messages.url, true, ['message.*'], 20],
      [failing.url, false, ['instance.updated', 'group.*'], 1],
    ],
  )
  const removed = await linked.api('remove_webhook', { webhook_id: messagesHook.webhook_id })
  assert.equal(removed.status, 200, JSON.stringify(removed.body))
  const count = messages.received.length
  await fromAlice('after removal')
  await new Promise((resolve) => setTimeout(resolve, 300))
  assert.equal(messages.received.length, count)
})
