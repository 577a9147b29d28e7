import assert from 'node:assert/strict'
import { Writable } from 'node:stream'
import { after, before, describe, test } from 'node:test'
import * as amqp from 'amqplib'
import { connect as natsConnect, StorageType } from 'nats'
import type { LinkdeskEvent } from '../contract/events'
import { createLogger } from '../logger'
import { linkedCoreFixture } from '../testing/linked-core'
import {
  brokerMissing,
  startNats,
  startRabbitMq,
  type BrokerServer,
  type RabbitServer,
} from '../testing/broker-servers'
import { consumeNats, consumeRabbit, type ConsumedMessage } from '../testing/broker-consumers'
import { waitFor } from '../testing/webhook-receiver'
import { BrokerSinks } from './broker-sinks'

// Brokers set up as their operators do: streams, exchanges, users and permissions made beforehand, under names
// of the operator's choosing; Linkdesk publishes into them as they are, or names what is wrong until it is fixed.
const ME = '15550790201'
const ALICE = '15550790202'

const linked = linkedCoreFixture(ME, [{ phone: ALICE, name: 'Alice' }], {
  events: { webhook: { backoffBaseMs: 200, backoffMaxMs: 1_000, timeoutMs: 5_000, maxAttempts: 10_000 } },
})

async function fromAlice(prefix: string, count: number): Promise<string[]> {
  const ids: string[] = []
  for (let n = 0; n < count; n++)
    ids.push((await linked.control.send(ALICE, { to: ME, text: `${prefix} ${n}` })).id)
  return ids
}

async function attempts(sinkId: string, outcome?: string): Promise<Array<Record<string, any>>> {
  const { body } = await linked.api('deliveries', {
    webhook_id: sinkId,
    limit: 500,
    ...(outcome && { outcome }),
  })
  return body.deliveries
}

/** Waits for the sink's first retrying attempt and answers its error. */
async function firstFailure(sinkId: string): Promise<string> {
  await waitFor(async () => (await attempts(sinkId, 'retrying')).length > 0, 60_000, 'a failed publish')
  return (await attempts(sinkId, 'retrying')).at(-1)!.error
}

async function addSink(params: Record<string, unknown>): Promise<string> {
  const { status, body } = await linked.api('add_sink', { events: ['message.received'], ...params })
  assert.equal(status, 200, JSON.stringify(body))
  return body.sink.sink_id
}

/** The network ids of the message.received events a consumer took. */
function messageIds(messages: readonly ConsumedMessage[]): Set<string> {
  return new Set(messages.map(({ event }) => (event.data as { id: string }).id))
}

/** Every one of the messages is among those taken (a repeat is allowed: delivery is at least once). */
function assertAll(taken: readonly ConsumedMessage[], ids: readonly string[], message?: string) {
  const seen = messageIds(taken)
  assert.deepEqual(
    ids.filter((id) => !seen.has(id)),
    [],
    message ?? 'every message taken',
  )
}

const hasAll = (ids: readonly string[]) => (taken: readonly ConsumedMessage[]) => {
  const seen = messageIds(taken)
  return ids.every((id) => seen.has(id))
}

function sampleEvent(instanceId: string, n: number): LinkdeskEvent {
  return {
    event: 'message.received',
    event_id: `ev-operators-${n}`,
    instance_id: instanceId,
    timestamp: String(Math.floor(Date.now() / 1000)),
    data: { id: `msg-${n}` },
  }
}

/** A logger whose warnings (and the rest) a test reads back. */
function capturedLogger() {
  const lines: Array<{ level: number; msg: string; error?: string }> = []
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const line of chunk.toString().split('\n').filter(Boolean)) lines.push(JSON.parse(line))
      done()
    },
  })
  return { logger: createLogger('debug', stream), lines }
}

describe('a RabbitMQ sink on a broker its operator set up', { skip: brokerMissing('rabbitmq') }, () => {
  let broker: RabbitServer
  let operator: amqp.ChannelModel
  let userUrl: string
  const EXCHANGE = 'ops-events'
  const QUEUE = 'ops-inbox'

  before(async () => {
    broker = await startRabbitMq()
    await broker.ctl('add_user', 'linkdesk', 's3cret-pw')
    userUrl = broker.url.replace('guest:guest', 'linkdesk:s3cret-pw')
    operator = await amqp.connect(broker.url)
  })
  after(async () => {
    await operator?.close().catch(() => undefined)
    await broker?.dispose()
  })

  /** The operator's channel for one change (a refused one closes it, so each change gets its own). */
  async function asOperator<T>(change: (channel: amqp.Channel) => Promise<T>): Promise<T> {
    const channel = await operator.createChannel()
    try {
      return await change(channel)
    } finally {
      await channel.close().catch(() => undefined)
    }
  }

  async function permit(configure: string, write: string) {
    await broker.ctl('set_permissions', '-p', '/', 'linkdesk', configure, write, '')
  }

  test('an exchange of another type is named as the reason, and publishing resumes once the operator re-declares it', async () => {
    await permit(`^${EXCHANGE}$`, `^${EXCHANGE}$`)
    await asOperator(async (channel) => {
      await channel.assertExchange(EXCHANGE, 'fanout', { durable: true })
      await channel.assertQueue(QUEUE, { durable: true })
      await channel.bindQueue(QUEUE, EXCHANGE, '')
    })
    const sinkId = await addSink({ kind: 'rabbitmq', url: userUrl, exchange: EXCHANGE })
    const ids = await fromAlice('wrong type', 3)
    const error = await firstFailure(sinkId)
    assert.match(error, /^rabbitmq: exchange ops-events exists with another type or settings/)
    assert.match(error, /PRECONDITION_FAILED/)
    assert.match(error, /fanout/)
    await asOperator(async (channel) => {
      await channel.deleteExchange(EXCHANGE)
      await channel.assertExchange(EXCHANGE, 'topic', { durable: true })
      await channel.bindQueue(QUEUE, EXCHANGE, `${linked.instanceId}.#`)
    })
    const taken = await consumeRabbit(broker.url, QUEUE, hasAll(ids))
    assertAll(taken, ids, "every message in the operator's queue")
    assert.equal((await attempts(sinkId, 'failed')).length, 0, 'nothing dropped from the outbox')
    await linked.api('remove_sink', { sink_id: sinkId })
  })

  test('credentials without the write permission are named as the reason, and publishing resumes once it is granted', async () => {
    await permit(`^${EXCHANGE}$`, '^$')
    const sinkId = await addSink({ kind: 'rabbitmq', url: userUrl, exchange: EXCHANGE })
    const ids = await fromAlice('no write', 3)
    const error = await firstFailure(sinkId)
    assert.match(
      error,
      /^rabbitmq: the user may not publish to exchange ops-events \(it lacks the write permission\)/,
    )
    assert.match(error, /ACCESS_REFUSED/)
    assert.doesNotMatch(error, /s3cret-pw/)
    await permit(`^${EXCHANGE}$`, `^${EXCHANGE}$`)
    const taken = await consumeRabbit(broker.url, QUEUE, hasAll(ids))
    assertAll(taken, ids)
    assert.equal((await attempts(sinkId, 'failed')).length, 0, 'nothing dropped from the outbox')
    await linked.api('remove_sink', { sink_id: sinkId })
  })

  test("credentials that may only write publish into the operator's exchange; a missing one is named until it is made", async () => {
    await permit('^$', `^(${EXCHANGE}|ops-audit)$`)
    const sinkId = await addSink({ kind: 'rabbitmq', url: userUrl, exchange: EXCHANGE })
    const ids = await fromAlice('write only', 3)
    const taken = await consumeRabbit(broker.url, QUEUE, hasAll(ids))
    assertAll(taken, ids, 'published without declaring')
    await linked.api('remove_sink', { sink_id: sinkId })

    const auditId = await addSink({ kind: 'rabbitmq', url: userUrl, exchange: 'ops-audit' })
    const later = await fromAlice('audit', 2)
    const error = await firstFailure(auditId)
    assert.match(
      error,
      /exchange ops-audit does not exist and the user may not declare it \(it lacks the configure permission\)/,
    )
    await asOperator(async (channel) => {
      await channel.assertExchange('ops-audit', 'topic', { durable: true })
      await channel.assertQueue('ops-audit-inbox', { durable: true })
      await channel.bindQueue('ops-audit-inbox', 'ops-audit', '#')
    })
    const audited = await consumeRabbit(broker.url, 'ops-audit-inbox', hasAll(later))
    assertAll(audited, later)
    await linked.api('remove_sink', { sink_id: auditId })
  })

  test('a refusal is logged once however often it is retried, and its end once', async () => {
    await permit('^$', '^$')
    const { logger, lines } = capturedLogger()
    const sinks = new BrokerSinks(logger)
    const target = { sinkId: 'sk_ops', url: userUrl, sink: { kind: 'rabbitmq' as const, exchange: EXCHANGE } }
    const stop = new AbortController().signal
    try {
      for (let n = 0; n < 4; n++) {
        const result = await sinks.publish(target, [sampleEvent(linked.instanceId, n)], n + 1, 5_000, stop)
        assert.equal(result.kind, 'retry')
      }
      await permit('^$', `^${EXCHANGE}$`)
      const result = await sinks.publish(target, [sampleEvent(linked.instanceId, 9)], 5, 5_000, stop)
      assert.equal(result.kind, 'delivered', JSON.stringify(result))
    } finally {
      await sinks.close()
    }
    const warnings = lines.filter(({ level, msg }) => level === 40 && msg === 'broker sink publish failed')
    assert.equal(warnings.length, 1, JSON.stringify(warnings))
    assert.match(warnings[0]!.error!, /lacks the write permission/)
    assert.equal(lines.filter(({ msg }) => msg === 'broker sink publishing again').length, 1)
  })
})

describe('a NATS sink on a JetStream its operator set up', { skip: brokerMissing('nats') }, () => {
  let broker: BrokerServer
  let manager: Awaited<ReturnType<Awaited<ReturnType<typeof natsConnect>>['jetstreamManager']>>
  let closeOperator: () => Promise<void>

  before(async () => {
    broker = await startNats()
    const connection = await natsConnect({ servers: broker.url.replace('nats://', '') })
    manager = await connection.jetstreamManager()
    closeOperator = () => connection.close()
  })
  after(async () => {
    await closeOperator?.()
    await broker?.dispose()
  })

  const streamNames = async () => (await manager.streams.names().next()).sort()

  test("publishes into the operator's stream that captures the instance's subjects, and makes no LINKDESK", async () => {
    const subjects = `linkdesk.${linked.instanceId}.>`
    await manager.streams.add({ name: 'OPS_WHATSAPP', subjects: [subjects], storage: StorageType.File })
    const sinkId = await addSink({ kind: 'nats', url: broker.url })
    const ids = await fromAlice('operator stream', 4)
    const taken = await consumeNats(broker.url, 'OPS_WHATSAPP', subjects, hasAll(ids))
    assertAll(taken, ids, "every message in the operator's stream")
    assert.deepEqual(await streamNames(), ['OPS_WHATSAPP'], 'no stream of its own made')
    assert.equal((await attempts(sinkId, 'retrying')).length, 0)
    await linked.api('remove_sink', { sink_id: sinkId })
  })

  test('a stream named for the sink that does not capture its subjects is said so, and used once it does', async () => {
    await manager.streams.add({ name: 'AUDIT', subjects: ['audit.>'], storage: StorageType.File })
    const sinkId = await addSink({ kind: 'nats', url: broker.url, stream: 'AUDIT' })
    const ids = await fromAlice('named stream', 3)
    const error = await firstFailure(sinkId)
    assert.match(
      error,
      new RegExp(
        `^nats: stream AUDIT does not capture linkdesk\\.${linked.instanceId}\\.message\\.received: stream OPS_WHATSAPP does`,
      ),
    )
    // The operator moves the instance's subjects to AUDIT.
    await manager.streams.delete('OPS_WHATSAPP')
    await waitFor(
      async () =>
        (await attempts(sinkId, 'retrying')).some(({ error: text }) => /its subjects: audit\.>/.test(text)),
      60_000,
      'the named stream without the subjects said so',
    )
    await manager.streams.update('AUDIT', { subjects: ['audit.>', `linkdesk.${linked.instanceId}.>`] })
    const taken = await consumeNats(broker.url, 'AUDIT', `linkdesk.${linked.instanceId}.>`, hasAll(ids))
    assertAll(taken, ids)
    assert.equal((await attempts(sinkId, 'failed')).length, 0, 'nothing dropped from the outbox')
    assert.deepEqual(await streamNames(), ['AUDIT'])
    await linked.api('remove_sink', { sink_id: sinkId })
  })

  test('LINKDESK is made only when no stream captures the subjects', async () => {
    await manager.streams.delete('AUDIT')
    const sinkId = await addSink({ kind: 'nats', url: broker.url })
    const ids = await fromAlice('no stream', 3)
    const taken = await consumeNats(broker.url, 'LINKDESK', `linkdesk.${linked.instanceId}.>`, hasAll(ids))
    assertAll(taken, ids)
    assert.deepEqual((await manager.streams.info('LINKDESK')).config.subjects, ['linkdesk.>'])
    await linked.api('remove_sink', { sink_id: sinkId })
  })
})
