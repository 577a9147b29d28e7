import assert from 'node:assert/strict'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { test } from 'node:test'
import { postOk } from '../../bench/harness/http'
import type { Started } from '../../bench/harness/processes'
import { startSandbox, type OutsideSandbox } from '../../bench/harness/sandbox'
import {
  killNow,
  linkServedInstance,
  loggedReceivedEvents,
  startStormServe,
} from '../core/testing/storm-node'
import { brokerMissing, startNats, startRabbitMq } from '../core/testing/broker-servers'
import {
  bindRabbitQueue,
  consumeNats,
  consumeRabbit,
  type ConsumedMessage,
} from '../core/testing/broker-consumers'
import { waitFor } from '../core/testing/webhook-receiver'
import { testStoreEnv } from '../core/testing/test-store'

// A contact's burst of messages arrives while the app, publishing to a RabbitMQ and a NATS sink, is killed
// with SIGKILL and started again on the same data folder. At each broker's consumer, every message must be
// there under one event id (its one event in the log); the same event may be published twice (at least once).
const ROUNDS = 2
const BURST = 60
const LANES = 6
const TOKEN = 'broker-kill-token'
const ME = '15550790101'
const ALICE = '15550790102'
const STREAM = 'LINKDESK_KILL'
const EXCHANGE = 'linkdesk-kill'

const missing = brokerMissing('rabbitmq') ?? brokerMissing('nats')

async function burst(sandbox: OutsideSandbox, round: number): Promise<string[]> {
  const ids: string[] = []
  let next = 0
  const lane = async () => {
    while (next < BURST) {
      const n = next++
      ids.push(await sandbox.send(ALICE, ME, `burst ${round}.${n}`))
    }
  }
  await Promise.all(Array.from({ length: LANES }, lane))
  return ids
}

/** Per network message id, the event ids a consumer got it under. */
function eventIdsByMessage(messages: readonly ConsumedMessage[]): Map<string, Set<string>> {
  const byMessage = new Map<string, Set<string>>()
  for (const { event } of messages) {
    const id = (event.data as { id: string }).id
    byMessage.set(id, new Set([...(byMessage.get(id) ?? []), event.event_id]))
  }
  return byMessage
}

test(
  `kill -9 during ${ROUNDS} bursts of ${BURST} incoming messages: each message is at the RabbitMQ and NATS consumers under its one event id`,
  { skip: missing, timeout: 600_000 },
  async (t) => {
    const [rabbit, nats] = await Promise.all([startRabbitMq(), startNats()])
    const sandbox = await startSandbox()
    const dataDir = mkdtempSync(join(tmpdir(), 'linkdesk-broker-kill-'))
    const env = { LINKDESK_ACCESS_TOKEN: TOKEN, ...(await testStoreEnv(dataDir)) }
    let app: Started = await startStormServe(dataDir, sandbox.controlUrl, env)
    t.after(async () => {
      await app.stop()
      await sandbox.stop()
      await Promise.all([rabbit.dispose(), nats.dispose()])
      rmSync(dataDir, { recursive: true, force: true })
    })
    const call = <T>(name: string, params: Record<string, unknown> = {}) =>
      postOk<T>(`${app.values.get('api')}/${name}`, { access_token: TOKEN, ...params })
    await sandbox.addContact(ALICE, 'Alice')
    const instanceId = await linkServedInstance(call, sandbox, ME)
    const queue = await bindRabbitQueue(rabbit.url, EXCHANGE, `${instanceId}.message.received`)
    const filter = { instance_id: instanceId, events: ['message.received'] }
    const { sink: rabbitSink } = await call<{ sink: { sink_id: string } }>('add_sink', {
      ...filter,
      kind: 'rabbitmq',
      url: rabbit.url,
      exchange: EXCHANGE,
    })
    await call('add_sink', { ...filter, kind: 'nats', url: nats.url, stream: STREAM })

    const atRabbit: ConsumedMessage[] = []
    const readRabbit = async (sent: readonly string[]) => {
      const has = (taken: readonly ConsumedMessage[]) => {
        const seen = eventIdsByMessage([...atRabbit, ...taken])
        return sent.every((id) => seen.has(id))
      }
      atRabbit.push(...(await consumeRabbit(rabbit.url, queue, has, 120_000)))
      return atRabbit
    }
    const readNats = (sent: readonly string[]) =>
      consumeNats(
        nats.url,
        STREAM,
        `linkdesk.${instanceId}.message.received`,
        (taken) => {
          const seen = eventIdsByMessage(taken)
          return sent.every((id) => seen.has(id))
        },
        120_000,
      )

    const sent: string[] = []
    for (let round = 0; round < ROUNDS; round++) {
      const published = async () =>
        (
          await call<{ deliveries: unknown[] }>('deliveries', {
            webhook_id: rabbitSink.sink_id,
            outcome: 'delivered',
            limit: 500,
          })
        ).deliveries.length
      const before = await published()
      const sending = burst(sandbox, round)
      // Killed some 5 to 25 publishes into the burst (or at its end, if it all came in before).
      const killAfter = before + 5 + Math.floor(Math.random() * 20)
      await Promise.race([waitFor(async () => (await published()) >= killAfter, 60_000), sending])
      await killNow(app)
      app = await startStormServe(dataDir, sandbox.controlUrl, env)
      sent.push(...(await sending))

      const consumers = [
        ['RabbitMQ', await readRabbit(sent)],
        ['NATS', await readNats(sent)],
      ] as const
      // Read once every message is at the consumers (each published event was committed first).
      const logged = await loggedReceivedEvents(call, instanceId)

      for (const [name, consumed] of consumers) {
        const byMessage = eventIdsByMessage(consumed)
        assert.deepEqual(
          [...byMessage.keys()].sort(),
          [...sent].sort(),
          `${name}: no message other than those sent`,
        )
        for (const id of sent) {
          assert.equal(
            byMessage.get(id)?.size,
            1,
            `${name}: message ${id} came under ${byMessage.get(id)?.size} event ids`,
          )
          assert.deepEqual(
            logged.get(id),
            [...byMessage.get(id)!],
            `${name}: message ${id}: its one event is in the log`,
          )
        }
        const ids = consumed.map(({ event }) => event.event_id)
        t.diagnostic(
          `${name} after round ${round}: ${sent.length} messages, ${ids.length - new Set(ids).size} repeats`,
        )
      }
    }
  },
)
