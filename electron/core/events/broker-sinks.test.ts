import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { call, TOKEN } from '../testing/instance-harness'
import { linkedCoreFixture } from '../testing/linked-core'
import { brokerMissing, startNats, startRabbitMq, type BrokerServer } from '../testing/broker-servers'
import {
  bindRabbitQueue,
  consumeNats,
  consumeRabbit,
  type ConsumedMessage,
} from '../testing/broker-consumers'
import { waitFor } from '../testing/webhook-receiver'

const ME = '15550790001'
const ALICE = '15550790002'

const linked = linkedCoreFixture(ME, [{ phone: ALICE, name: 'Alice' }], {
  // Retries come quickly and never run out while a broker restarts.
  events: { webhook: { backoffBaseMs: 200, backoffMaxMs: 1_000, timeoutMs: 5_000, maxAttempts: 10_000 } },
})

/** Alice's texts, one after the other; answers their message ids. */
async function fromAlice(prefix: string, count: number): Promise<string[]> {
  const ids: string[] = []
  for (let n = 0; n < count; n++)
    ids.push((await linked.control.send(ALICE, { to: ME, text: `${prefix} ${n}` })).id)
  return ids
}

/** The ids of the message.received events of these messages in the event log, oldest first. */
async function loggedEventIds(messageIds: readonly string[]): Promise<string[]> {
  const wanted = new Set(messageIds)
  const found = new Map<string, string>()
  await waitFor(
    async () => {
      let cursor: string | null = null
      do {
        const { body } = await linked.api('events', {
          event: 'message.received',
          limit: 500,
          ...(cursor ? { cursor } : {}),
        })
        for (const { event_id, data } of body.events as Array<{ event_id: string; data: { id: string } }>)
          if (wanted.has(data.id)) found.set(data.id, event_id)
        cursor = body.next_cursor
      } while (cursor)
      return found.size === wanted.size
    },
    60_000,
    'every message in the event log',
  )
  return [...found.values()].sort()
}

/** The event ids in the order a consumer first saw them (a repeat, at least once, keeps its first place). */
function firstSeen(messages: readonly ConsumedMessage[]): string[] {
  return [...new Set(messages.map(({ event }) => event.event_id))]
}

async function sinkAttempts(sinkId: string, outcome?: string): Promise<Array<Record<string, any>>> {
  const { body } = await linked.api('deliveries', {
    webhook_id: sinkId,
    limit: 500,
    ...(outcome && { outcome }),
  })
  return body.deliveries
}

async function metric(name: string, labels: string): Promise<number> {
  const response = await fetch(`${linked.core.apiBase}/metrics`, {
    headers: { authorization: `Bearer ${TOKEN}` },
  })
  const line = (await response.text()).split('\n').find((row) => row.startsWith(`${name}{${labels}}`))
  return Number(line?.split(' ').at(-1) ?? 0)
}

interface Kind {
  kind: 'rabbitmq' | 'nats'
  start(): Promise<BrokerServer>
  /** Extra fields of add_sink. */
  target: Record<string, string>
  /** Prepares a consumer (before events flow) and answers how to read everything it has now. */
  consumer(
    broker: BrokerServer,
    instanceId: string,
  ): Promise<(expected: readonly string[]) => Promise<ConsumedMessage[]>>
  keyOf(instanceId: string): string
}

const KINDS: Kind[] = [
  {
    kind: 'rabbitmq',
    start: startRabbitMq,
    target: { exchange: 'linkdesk-test' },
    async consumer(broker, instanceId) {
      const queue = await bindRabbitQueue(broker.url, 'linkdesk-test', `${instanceId}.message.*`)
      const all: ConsumedMessage[] = []
      return async (expected) => {
        const has = (taken: readonly ConsumedMessage[]) => {
          const seen = new Set([...all, ...taken].map(({ event }) => event.event_id))
          return expected.every((id) => seen.has(id))
        }
        all.push(...(await consumeRabbit(broker.url, queue, has)))
        return all
      }
    },
    keyOf: (instanceId) => `${instanceId}.message.received`,
  },
  {
    kind: 'nats',
    start: startNats,
    target: { stream: 'LINKDESK_TEST' },
    async consumer(broker, instanceId) {
      return (expected) =>
        consumeNats(broker.url, 'LINKDESK_TEST', `linkdesk.${instanceId}.>`, (taken) => {
          const seen = new Set(taken.map(({ event }) => event.event_id))
          return expected.every((id) => seen.has(id))
        })
    },
    keyOf: (instanceId) => `linkdesk.${instanceId}.message.received`,
  },
]

for (const kind of KINDS) {
  describe(`${kind.kind} sink`, { skip: brokerMissing(kind.kind) }, () => {
    let broker: BrokerServer
    let sinkId: string
    let read: (expected: readonly string[]) => Promise<ConsumedMessage[]>
    const sent: string[] = []

    before(async () => {
      broker = await kind.start()
    })
    after(async () => {
      await linked.api('remove_sink', { sink_id: sinkId })
      await broker?.dispose()
    })

    test('bad configuration is refused with a clear error and nothing is kept', async () => {
      const cases: Array<[Record<string, unknown>, RegExp]> = [
        [{ kind: 'kafka', url: broker.url }, /kind must be one of: rabbitmq, nats/],
        [{ kind: kind.kind, url: 'not a url' }, new RegExp(`url must be a ${kind.kind} address`)],
        [{ kind: kind.kind, url: 'http://127.0.0.1:5672' }, new RegExp(`url must be a ${kind.kind} address`)],
        [{ kind: kind.kind, url: broker.url, events: ['message.nonsense'] }, /not an event name/],
        [
          {
            kind: kind.kind,
            url: broker.url,
            ...(kind.kind === 'nats' ? { exchange: 'x' } : { stream: 'x' }),
          },
          /is for a (nats|rabbitmq) sink/,
        ],
      ]
      for (const [params, message] of cases) {
        const { status, body } = await linked.api('add_sink', params)
        assert.equal(status, 400, JSON.stringify(body))
        assert.match(body.message, message)
      }
      assert.deepEqual((await linked.api('sinks')).body.sinks, [], 'no sink of the instance kept')
      const global = await call(linked.core.apiBase, 'sinks')
      assert.deepEqual(global.body.sinks, [], 'no global sink kept')
    })

    test('events arrive in order with their ids at a real consumer', async () => {
      read = await kind.consumer(broker, linked.instanceId)
      const password = 'pa55-w0rd-never-shown'
      const url =
        kind.kind === 'rabbitmq' ? broker.url : broker.url.replace('nats://', `nats://linkdesk:${password}@`)
      // NATS without authorization ignores the credentials; the point is that they are never answered.
      const added = await linked.api('add_sink', {
        kind: kind.kind,
        url,
        events: ['message.*'],
        ...kind.target,
      })
      assert.equal(added.status, 200, JSON.stringify(added.body))
      sinkId = added.body.sink.sink_id
      assert.equal(added.body.sink.kind, kind.kind)
      assert.doesNotMatch(
        JSON.stringify(added.body),
        kind.kind === 'rabbitmq' ? /guest@/ : new RegExp(password),
      )
      const listed = (await linked.api('sinks')).body.sinks
      assert.deepEqual(
        listed.map((sink: { sink_id: string }) => sink.sink_id),
        [sinkId],
      )
      assert.deepEqual((await linked.api('webhooks')).body.webhooks, [], 'a sink is not a webhook')

      const ids = await fromAlice(`${kind.kind} in order`, 15)
      sent.push(...ids)
      const expected = await loggedEventIds(ids)
      const consumed = await read(expected)
      assert.deepEqual(firstSeen(consumed), expected, 'every event, in the order of the log')
      for (const message of consumed) {
        assert.equal(message.messageId, message.event.event_id, 'the message id is the event id')
        assert.equal(message.eventIdHeader, message.event.event_id)
        assert.equal(message.key, kind.keyOf(linked.instanceId))
        if (kind.kind === 'rabbitmq') assert.equal(message.persistent, true)
      }
      // The consumer has its copy before the app records the publish's outcome: wait for the record itself.
      let attempts: Array<Record<string, any>> = []
      await waitFor(
        async () => {
          attempts = await sinkAttempts(sinkId, 'delivered')
          return expected.every((id) => attempts.some(({ event_id }) => event_id === id))
        },
        15_000,
        'each publish recorded as delivered',
      )
      assert.deepEqual(
        new Set(attempts.map(({ event_id }) => event_id)),
        new Set(expected),
        'each publish is a delivered attempt in the delivery log',
      )
      assert.ok(
        attempts.every(({ url: shown }) => !shown.includes(password) && !shown.includes('guest:guest')),
        'the delivery log never shows the password',
      )
      assert.ok(
        (await metric('linkdesk_sink_publishes_total', `kind="${kind.kind}",outcome="delivered"`)) >= 15,
      )
    })

    test('the broker stopped during traffic and started again: nothing is lost and the order is kept', async () => {
      const delivered = (await sinkAttempts(sinkId, 'delivered')).length
      const first = fromAlice(`${kind.kind} before the stop`, 10)
      await waitFor(
        async () => (await sinkAttempts(sinkId, 'delivered')).length >= delivered + 3,
        60_000,
        'some of the traffic published',
      )
      await broker.stop()
      const ids = [...(await first), ...(await fromAlice(`${kind.kind} while down`, 10))]
      sent.push(...ids)
      await waitFor(
        async () => (await sinkAttempts(sinkId, 'retrying')).length > 0,
        60_000,
        'a failed attempt in the delivery log',
      )
      const failure = (await sinkAttempts(sinkId, 'retrying'))[0]!
      assert.match(failure.error, new RegExp(`^${kind.kind}: `))
      assert.ok(
        (await metric('linkdesk_sink_publishes_total', `kind="${kind.kind}",outcome="retrying"`)) >= 1,
      )
      await broker.start()
      const expected = await loggedEventIds(sent)
      const consumed = await read(expected)
      assert.deepEqual(firstSeen(consumed), expected, 'every event of the traffic, in the order of the log')
    })
  })
}
