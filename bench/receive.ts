// Receive: a sandbox contact pushes texts (control API) → the app's message.received webhooks at a local
// receiver process, beside the same pushes to a raw Baileys socket (messages.upsert).
import { linkAppInstance, startApp } from './harness/app'
import { isEntry, runMain, type Figure } from './harness/figure'
import { cpuSeconds } from './harness/proc'
import { percentile, sleep, spread, wallClock } from './harness/stats'
import { formatSpread, markdownTable, verdict } from './harness/table'
import { RawProcess } from './raw/raw-client'
import { ReceiverProcess } from './webhook-delivery'

const MESSAGES = Number(process.env.BENCH_MESSAGES ?? 1000)
/** Control requests in flight: enough that the sandbox pushes faster than 1,000/s when it can. */
const PUSHERS = 16

interface Phase {
  perSecond: number
  p50: number
  p99: number
  cpuPer1000: number
}

/** The contact sends `count` texts carrying `bench:<send time>` to `to`; answers when the first was sent. */
async function push(send: (text: string) => Promise<string>, count: number): Promise<number> {
  let next = 0
  const startedAt = wallClock()
  const lane = async (): Promise<void> => {
    while (next < count) {
      next++
      await send(`bench:${wallClock()} message ${next}`)
    }
  }
  await Promise.all(Array.from({ length: PUSHERS }, lane))
  return startedAt
}

function phase(report: { latencies: number[]; lastAt: number }, startedAt: number, cpu: number): Phase {
  return {
    perSecond: report.latencies.length / ((report.lastAt - startedAt) / 1000),
    p50: percentile(report.latencies, 50),
    p99: percentile(report.latencies, 99),
    cpuPer1000: (cpu / report.latencies.length) * 1000,
  }
}

export const receiveFigure: Figure = async ({ sandbox, rounds, phone }) => {
  const app = await startApp(sandbox.controlUrl)
  const raw = await RawProcess.start(sandbox.wsUrl, sandbox.rootKeyHex)
  const receiver = await ReceiverProcess.start()
  const link = (qr: string, phoneNumber: string) => sandbox.link(qr, phoneNumber)
  const results: Record<'app' | 'raw', Phase[]> = { app: [], raw: [] }
  try {
    const [appPhone, rawPhone, appContact, rawContact] = [phone(), phone(), phone(), phone()]
    await sandbox.addContact(appContact)
    await sandbox.addContact(rawContact)
    const { instanceId } = await linkAppInstance(app, link, appPhone)
    await raw.link(link, rawPhone)
    await app.call('set_webhook', { instance_id: instanceId, webhook_url: receiver.url, enable: true })
    const warmup = Math.min(200, MESSAGES)
    await push((text) => sandbox.send(appContact, appPhone, text), warmup)
    await receiver.collect(warmup)
    await push((text) => sandbox.send(rawContact, rawPhone, text), warmup)
    await raw.call({ cmd: 'received', count: warmup, timeoutMs: 60_000 })

    const runApp = async () => {
      await sleep(500)
      const cpu = cpuSeconds(app.process.pid)
      const startedAt = await push((text) => sandbox.send(appContact, appPhone, text), MESSAGES)
      const report = await receiver.collect(MESSAGES)
      await sleep(500)
      results.app.push(phase(report, startedAt, cpuSeconds(app.process.pid) - cpu))
    }
    const runRaw = async () => {
      await sleep(500)
      const cpu = cpuSeconds(raw.pid)
      const startedAt = await push((text) => sandbox.send(rawContact, rawPhone, text), MESSAGES)
      const report = await raw.call<{ latencies: number[]; lastAt: number }>({
        cmd: 'received',
        count: MESSAGES,
        timeoutMs: 120_000,
      })
      await sleep(500)
      results.raw.push(phase(report, startedAt, cpuSeconds(raw.pid) - cpu))
    }
    for (let round = 0; round < rounds; round++) {
      if (round % 2 === 0) await runApp().then(runRaw)
      else await runRaw().then(runApp)
    }
  } finally {
    receiver.stop()
    await Promise.all([app.stop(), raw.stop()])
  }
  const s = (side: 'app' | 'raw', pick: (p: Phase) => number, digits = 0) =>
    formatSpread(spread(results[side].map(pick)), digits)
  const appRate = spread(results.app.map((p) => p.perSecond)).median
  const appP99 = spread(results.app.map((p) => p.p99)).median
  return [
    `## Receive: ${MESSAGES} texts pushed by a sandbox contact (${PUSHERS} control requests in flight), ${rounds} rounds`,
    '',
    markdownTable(
      ['side', 'events/s', 'p50 ms', 'p99 ms', 'CPU s / 1000'],
      [
        [
          'app: `message.received` webhook at a receiver process',
          s('app', (p) => p.perSecond),
          s('app', (p) => p.p50, 1),
          s('app', (p) => p.p99, 1),
          s('app', (p) => p.cpuPer1000, 2),
        ],
        [
          'raw: `messages.upsert` (notify) in the raw process',
          s('raw', (p) => p.perSecond),
          s('raw', (p) => p.p50, 1),
          s('raw', (p) => p.p99, 1),
          s('raw', (p) => p.cpuPer1000, 2),
        ],
      ],
    ),
    '',
    `Targets: ≥ 1,000 events/s ${verdict(appRate >= 1000, `${appRate.toFixed(0)}/s`)}; p99 ≤ 50 ms ${verdict(appP99 <= 50, `${appP99.toFixed(1)} ms`)}.`,
    "Latency runs from just before the contact's control request to the receiver (app) or the upsert (raw), on " +
      'one clock. Both sides get the same pushes; the raw row is the limit the sandbox and Baileys set together.',
  ].join('\n')
}

if (isEntry(import.meta.url)) runMain('receive', receiveFigure)
