// Webhook delivery benchmark: events per second delivered to a local receiver (in its own process) and the
// latency from emit to the receiver, beside a baseline that POSTs the same bodies with no outbox at all.
//
//   npm run bench:webhooks [-- --events N]
//
// Every scenario is a trigger that makes events happen and carries a `bench:<unix ms>` marker in them; the
// receiver measures latency from that marker. The "incoming sandbox message → webhook" scenario plugs in the
// same way (bench/receive.ts): an instance's webhook points at receiver.url and a sandbox contact sends
// `bench:<wallClock()>` as its text.
import { fork, type ChildProcess } from 'node:child_process'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { fileURLToPath } from 'node:url'
import { DEFAULT_EVENT_SETTINGS } from '../electron/core/contract/event-settings'
import { eventFixture, type EventFixture } from '../electron/core/testing/event-fixture'
import { markdownTable } from './harness/table'

/** Milliseconds since the epoch with sub-millisecond precision, comparable across processes. */
export const wallClock = () => performance.timeOrigin + performance.now()
const MARKER = /bench:(\d+(?:\.\d+)?)/

export interface ReceiverReport {
  count: number
  latencies: number[]
  firstAt: number
  lastAt: number
}

/** The events of a POST's body: the event, or each of a batch (a JSON array). */
function eventsOf(body: string): string[] {
  if (!body.startsWith('[')) return [body]
  return (JSON.parse(body) as unknown[]).map((event) => JSON.stringify(event))
}

/** The receiver process: answers 200 to every POST and keeps the latency of each event's marker. */
function runReceiver(): void {
  let report: ReceiverReport = { count: 0, latencies: [], firstAt: 0, lastAt: 0 }
  const server = createServer((request, response) => {
    const chunks: Buffer[] = []
    request.on('data', (chunk: Buffer) => chunks.push(chunk))
    request.on('end', () => {
      const now = wallClock()
      const events = eventsOf(Buffer.concat(chunks).toString('utf8'))
      for (const event of events) {
        const marker = MARKER.exec(event)
        if (marker) report.latencies.push(now - Number(marker[1]))
      }
      if (report.count === 0) report.firstAt = now
      report.count += events.length
      report.lastAt = now
      response.writeHead(200).end('ok')
    })
  })
  server.keepAliveTimeout = 60_000
  server.listen(0, '127.0.0.1', () => process.send?.({ port: (server.address() as AddressInfo).port }))
  process.on('message', (message: { type: string }) => {
    if (message.type === 'report') {
      process.send?.({ report })
      report = { count: 0, latencies: [], firstAt: 0, lastAt: 0 }
    }
    if (message.type === 'exit') server.close(() => process.exit(0))
  })
}

/** A webhook receiver in its own process, measuring latency from the bench marker in each body. */
export class ReceiverProcess {
  private constructor(
    private readonly child: ChildProcess,
    readonly url: string,
  ) {}

  static async start(): Promise<ReceiverProcess> {
    const child = fork(fileURLToPath(import.meta.url), ['--receiver'], { execArgv: ['--import', 'tsx'] })
    const port = await new Promise<number>((resolve) =>
      child.once('message', (message: { port: number }) => resolve(message.port)),
    )
    return new ReceiverProcess(child, `http://127.0.0.1:${port}/hook`)
  }

  /** Takes (and resets) what the receiver has seen since the last take. */
  take(): Promise<ReceiverReport> {
    return new Promise<ReceiverReport>((resolve) => {
      this.child.once('message', (message: { report: ReceiverReport }) => resolve(message.report))
      this.child.send({ type: 'report' })
    })
  }

  /** Waits until the receiver has seen `count` bench markers, then takes (and resets) its report. */
  async collect(count: number, timeoutMs = 120_000): Promise<ReceiverReport> {
    const deadline = Date.now() + timeoutMs
    const total: ReceiverReport = { count: 0, latencies: [], firstAt: 0, lastAt: 0 }
    for (;;) {
      const report = await this.take()
      if (report.count > 0) {
        total.firstAt ||= report.firstAt
        total.lastAt = report.lastAt
        total.count += report.count
        total.latencies.push(...report.latencies)
      }
      if (total.latencies.length >= count) return total
      if (Date.now() > deadline)
        throw new Error(`receiver got ${total.latencies.length} of ${count} marked events`)
      await new Promise((resolve) => setTimeout(resolve, 20))
    }
  }

  stop(): void {
    this.child.send({ type: 'exit' })
  }
}

function percentile(values: number[], p: number): number {
  if (values.length === 0) return NaN
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? NaN
}

export interface Row {
  scenario: string
  events: number
  perSecond: number
  p50: number
  p99: number
  note: string
}

function payload(n: number): Record<string, unknown> {
  return {
    id: `3EB0${n.toString(16).padStart(16, '0')}`,
    chat: '15551234567@s.whatsapp.net',
    type: 'text',
    text: `bench:${wallClock()} hello`,
  }
}

/** As fast as possible: emit `perInstance` events on each instance at once, time until all have arrived. */
async function burstScenario(
  fixture: EventFixture,
  receiver: ReceiverProcess,
  instances: number,
  perInstance: number,
) {
  const ids = Array.from({ length: instances }, (_, i) => `BURST${instances}_${i}`)
  for (const id of ids) fixture.addInstance(id, receiver.url)
  const started = wallClock()
  const emitStarted = performance.now()
  for (let n = 0; n < perInstance; n++)
    for (const id of ids) fixture.service.emit(id, 'message.received', payload(n))
  const emitMs = performance.now() - emitStarted
  const total = instances * perInstance
  const report = await receiver.collect(total)
  const seconds = (report.lastAt - started) / 1000
  return {
    scenario: `burst, ${instances} instance${instances > 1 ? 's' : ''}`,
    events: total,
    perSecond: total / seconds,
    p50: percentile(report.latencies, 50),
    p99: percentile(report.latencies, 99),
    note: `emit ${((emitMs / total) * 1000).toFixed(0)} µs/event (durable write)`,
  }
}

/**
 * Paced: `trigger` is called `rate` times per second for `seconds`; each call makes one event carrying a
 * bench marker. Reports emit→receiver latency. A sandbox scenario passes a trigger that sends a message.
 */
export async function latencyScenario(
  name: string,
  receiver: ReceiverProcess,
  trigger: (n: number) => void,
  rate: number,
  seconds: number,
): Promise<Row> {
  const total = rate * seconds
  const started = performance.now()
  let sent = 0
  await new Promise<void>((resolve) => {
    const tick = setInterval(() => {
      const due = Math.min(total, Math.floor(((performance.now() - started) / 1000) * rate))
      while (sent < due) trigger(sent++)
      if (sent >= total) {
        clearInterval(tick)
        resolve()
      }
    }, 1)
  })
  const report = await receiver.collect(total)
  return {
    scenario: name,
    events: total,
    perSecond: total / ((performance.now() - started) / 1000),
    p50: percentile(report.latencies, 50),
    p99: percentile(report.latencies, 99),
    note: `paced at ${rate}/s`,
  }
}

/** Baseline: the same bodies POSTed one after another with fetch, nothing written down first. */
async function baselineScenario(receiver: ReceiverProcess, total: number): Promise<Row> {
  const started = wallClock()
  for (let n = 0; n < total; n++) {
    const response = await fetch(receiver.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ event: 'message.received', data: payload(n) }),
    })
    await response.text()
  }
  const report = await receiver.collect(total)
  return {
    scenario: 'baseline: plain fetch loop, no outbox',
    events: total,
    perSecond: total / ((report.lastAt - started) / 1000),
    p50: percentile(report.latencies, 50),
    p99: percentile(report.latencies, 99),
    note: 'no durability, no signature',
  }
}

/** The rows as one markdown table on stdout. */
export function printTable(rows: Row[]): void {
  const header = ['scenario', 'events', 'events/s', 'p50 ms', 'p99 ms', 'note']
  const cells = rows.map((row) => [
    row.scenario,
    String(row.events),
    row.perSecond.toFixed(0),
    row.p50.toFixed(1),
    row.p99.toFixed(1),
    row.note,
  ])
  process.stdout.write(`${markdownTable(header, cells)}\n`)
}

async function main(): Promise<void> {
  const events = Number(process.argv[process.argv.indexOf('--events') + 1]) || 5_000
  const receiver = await ReceiverProcess.start()
  const fixture = await eventFixture(DEFAULT_EVENT_SETTINGS)
  try {
    await baselineScenario(receiver, 500)
    const rows: Row[] = []
    rows.push(await baselineScenario(receiver, events))
    rows.push(await burstScenario(fixture, receiver, 1, events))
    rows.push(await burstScenario(fixture, receiver, 4, Math.ceil(events / 4)))
    const across10 = await burstScenario(fixture, receiver, 10, Math.ceil(events / 10))
    rows.push(across10)
    fixture.addInstance('PACED', receiver.url)
    rows.push(
      await latencyScenario(
        'emit → webhook, 1 instance',
        receiver,
        (n) => fixture.service.emit('PACED', 'message.received', payload(n)),
        1_000,
        5,
      ),
    )
    const paced = ['PACED_0', 'PACED_1', 'PACED_2', 'PACED_3']
    for (const id of paced) fixture.addInstance(id, receiver.url)
    rows.push(
      await latencyScenario(
        'emit → webhook, 4 instances',
        receiver,
        (n) => fixture.service.emit(paced[n % 4]!, 'message.received', payload(n)),
        2_000,
        5,
      ),
    )
    process.stdout.write(`\nWebhook delivery (${new Date().toISOString()}, Node ${process.version})\n\n`)
    printTable(rows)
    const rate = across10.perSecond
    process.stdout.write(
      `\nTarget: ≥ 2,000 events/s to a local receiver across 10 instances: ${rate >= 2000 ? 'met' : 'MISSED'} (${rate.toFixed(0)}/s).\n`,
    )
  } finally {
    await fixture.close()
    receiver.stop()
  }
}

const isEntry = process.argv[1] !== undefined && fileURLToPath(import.meta.url) === process.argv[1]
if (process.argv.includes('--receiver')) runReceiver()
else if (isEntry)
  main().catch((error: unknown) => {
    process.stderr.write(`${(error as Error).stack}\n`)
    process.exit(1)
  })
