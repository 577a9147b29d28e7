// Broker sink benchmark: events per second from the outbox to a RabbitMQ sink and a NATS JetStream sink,
// beside an added webhook to a local receiver, through the same event service and delivery queue.
//
//   npm run bench:sinks [-- --events N]
//
// Each target is the one added webhook or sink of the event service (a global one, taking every instance's
// events); a burst of N events over 10 instances is emitted at once and timed until the last one is at the
// far side: the webhook receiver (its own process), a RabbitMQ consumer on a queue bound to the exchange, a
// NATS subscriber on `linkdesk.>`. Debian's rabbitmq-server and nats-server are started for the run.
import * as amqp from 'amqplib'
import { connect as natsConnect } from 'nats'
import { fileURLToPath } from 'node:url'
import { DEFAULT_EVENT_SETTINGS } from '../electron/core/contract/event-settings'
import type { EventServiceDeps } from '../electron/core/events/event-service'
import type { WebhookRecord } from '../electron/core/store/settings-store'
import { startNats, startRabbitMq } from '../electron/core/testing/broker-servers'
import { bindRabbitQueue } from '../electron/core/testing/broker-consumers'
import { eventFixture } from '../electron/core/testing/event-fixture'
import { printTable, ReceiverProcess, wallClock, type Row } from './webhook-delivery'

const MARKER = /bench:(\d+(?:\.\d+)?)/
const INSTANCES = 10

/** The event service's directory of added webhooks: just this one, global, taking every event. */
function only(record: WebhookRecord): NonNullable<EventServiceDeps['webhooks']> {
  return {
    find: (id) => (id === record.id ? record : undefined),
    targetsOf: () => [record],
    takes: () => true,
  }
}

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? NaN
}

/** Where the far side counts what arrived: each event's latency from its marker, and when the last came. */
class Arrivals {
  latencies: number[] = []
  lastAt = 0
  private waiting: { count: number; resolve: () => void } | undefined

  add(body: string): void {
    const now = wallClock()
    const marker = MARKER.exec(body)
    if (marker) this.latencies.push(now - Number(marker[1]))
    this.lastAt = now
    if (this.waiting && this.latencies.length >= this.waiting.count) this.waiting.resolve()
  }

  until(count: number, timeoutMs = 300_000): Promise<void> {
    if (this.latencies.length >= count) return Promise.resolve()
    return new Promise((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`${this.latencies.length} of ${count} events arrived`)),
        timeoutMs,
      )
      this.waiting = {
        count,
        resolve: () => {
          clearTimeout(timer)
          resolve()
        },
      }
    })
  }

  reset(): void {
    this.latencies = []
    this.lastAt = 0
  }
}

/** Emits `total` marked events over the instances at once and times them until the far side has them all. */
async function burst(
  name: string,
  record: WebhookRecord,
  total: number,
  arrived: () => Promise<{ latencies: number[]; lastAt: number }>,
): Promise<Row> {
  const fixture = await eventFixture(DEFAULT_EVENT_SETTINGS, undefined, { webhooks: only(record) })
  try {
    const ids = Array.from({ length: INSTANCES }, (_, i) => `BENCH_SINK_${i}`)
    for (const id of ids) fixture.addInstance(id, null)
    const started = wallClock()
    for (let n = 0; n < total; n++) {
      fixture.service.emit(ids[n % INSTANCES]!, 'message.received', {
        id: `3EB0${n.toString(16).padStart(16, '0')}`,
        chat: '15551234567@s.whatsapp.net',
        type: 'text',
        text: `bench:${wallClock()} hello`,
      })
    }
    const report = await arrived()
    return {
      scenario: name,
      events: total,
      perSecond: total / ((report.lastAt - started) / 1000),
      p50: percentile(report.latencies, 50),
      p99: percentile(report.latencies, 99),
      note: `${INSTANCES} instances, burst, batch_size ${record.batchSize ?? 1}`,
    }
  } finally {
    await fixture.close()
  }
}

async function main(): Promise<void> {
  const total = Number(process.argv[process.argv.indexOf('--events') + 1]) || 2_000
  const [rabbit, nats] = await Promise.all([startRabbitMq(), startNats()])
  const receiver = await ReceiverProcess.start()
  const rabbitArrivals = new Arrivals()
  const natsArrivals = new Arrivals()
  const rabbitConnection = await amqp.connect(rabbit.url)
  const natsConnection = await natsConnect({ servers: nats.url.replace('nats://', '') })
  try {
    const queue = await bindRabbitQueue(rabbit.url, 'linkdesk-bench', '#')
    const channel = await rabbitConnection.createChannel()
    await channel.prefetch(1_000)
    await channel.consume(queue, (message) => {
      if (!message) return
      rabbitArrivals.add(message.content.toString())
      channel.ack(message)
    })
    const subscription = natsConnection.subscribe('linkdesk.>')
    void (async () => {
      for await (const message of subscription) natsArrivals.add(message.string())
    })()
    const base = {
      ownerTokenId: null,
      instanceId: null,
      secret: 'whsec_bench',
      enable: true,
      events: [],
      createdAt: 0,
    }
    const rows: Row[] = []
    for (const batchSize of [1, 100]) {
      const batch = batchSize > 1 ? { batchSize } : {}
      rows.push(
        await burst(
          `added webhook (local receiver), batch ${batchSize}`,
          { ...base, ...batch, id: 'wh_bench', url: receiver.url },
          total,
          () => receiver.collect(total),
        ),
      )
      const sinks: {
        name: string
        record: Pick<WebhookRecord, 'id' | 'url' | 'sink'>
        arrivals: Arrivals
      }[] = [
        {
          name: 'RabbitMQ sink (confirmed, persistent)',
          record: {
            id: 'sk_rabbit',
            url: rabbit.url,
            sink: { kind: 'rabbitmq', exchange: 'linkdesk-bench' },
          },
          arrivals: rabbitArrivals,
        },
        {
          name: 'NATS JetStream sink (acknowledged)',
          record: { id: 'sk_nats', url: nats.url, sink: { kind: 'nats', stream: 'LINKDESK_BENCH' } },
          arrivals: natsArrivals,
        },
      ]
      for (const sink of sinks) {
        sink.arrivals.reset()
        const record = { ...base, ...batch, ...sink.record }
        rows.push(
          await burst(`${sink.name}, batch ${batchSize}`, record, total, async () => {
            await sink.arrivals.until(total)
            return sink.arrivals
          }),
        )
      }
    }
    process.stdout.write(
      `\nBroker sinks beside a webhook (${new Date().toISOString()}, Node ${process.version})\n\n`,
    )
    printTable(rows)
  } finally {
    receiver.stop()
    await rabbitConnection.close().catch(() => undefined)
    await natsConnection.close().catch(() => undefined)
    await Promise.all([rabbit.dispose(), nats.dispose()])
  }
}

if (process.argv[1] !== undefined && fileURLToPath(import.meta.url) === process.argv[1])
  main().catch((error: unknown) => {
    process.stderr.write(`${(error as Error).stack}\n`)
    process.exit(1)
  })
