// Receive: a sandbox contact pushes texts (control API) → the app's message.received webhooks at a local
// receiver process, beside the same pushes to a raw Baileys socket (messages.upsert).
import { type AppProcess, linkAppInstance, startApp } from './harness/app'
import { isEntry, metOrMissed, runMain, type Figure } from './harness/figure'
import { followLiveStream } from './harness/live-stream'
import { benchPostgres } from './harness/postgres'
import { cpuSeconds } from './harness/proc'
import { percentile, sleep, spread, wallClock } from './harness/stats'
import { formatSpread, markdownTable, verdict } from './harness/table'
import { RawProcess } from './raw/raw-client'
import { ReceiverProcess } from './webhook-delivery'

const MESSAGES = Number(process.env.BENCH_MESSAGES ?? 1000)
/** Control requests in flight: enough that the sandbox pushes faster than 1,000/s when it can. */
const PUSHERS = 16
/** The paced phase: below both sides' capacity, so latency is the path's own, not a backlog's. */
const PACED_RATE = Number(process.env.BENCH_RECEIVE_RATE ?? 200)
/** The batch_size of the batched burst (the opt-in for busy receivers). */
const BATCH = 100

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

/** The contact sends `count` marked texts at `rate` per second, whatever the answers' timing. */
async function pushPaced(
  send: (text: string) => Promise<string>,
  count: number,
  rate: number,
): Promise<number> {
  const startedAt = wallClock()
  const sends: Array<Promise<string>> = []
  for (let n = 0; n < count; n++) {
    const due = startedAt + (n * 1000) / rate
    const wait = due - wallClock()
    if (wait > 1) await sleep(wait)
    sends.push(send(`bench:${wallClock()} paced ${n}`))
  }
  await Promise.all(sends)
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

export const receiveFigure: Figure = async ({ sandbox, rounds, phone, target }) => {
  const app = await startApp(sandbox.controlUrl)
  const raw = await RawProcess.start(sandbox.wsUrl, sandbox.rootKeyHex)
  const receiver = await ReceiverProcess.start()
  // The same app on PostgreSQL (--store), with its own receiver, in phases of its own beside the others.
  const postgres = await benchPostgres()
  const pgApp = postgres && (await startApp(sandbox.controlUrl, undefined, { store: postgres.url }))
  const pgReceiver = postgres && (await ReceiverProcess.start())
  const link = (qr: string, phoneNumber: string) => sandbox.link(qr, phoneNumber)
  const results: Record<
    | 'app'
    | 'app batched'
    | 'raw'
    | 'app paced'
    | 'raw paced'
    | 'emitted'
    | 'emitted paced'
    | 'postgres'
    | 'postgres paced',
    Phase[]
  > = {
    postgres: [],
    'postgres paced': [],
    app: [],
    'app batched': [],
    raw: [],
    'app paced': [],
    'raw paced': [],
    emitted: [],
    'emitted paced': [],
  }
  type Pusher = (send: (text: string) => Promise<string>) => Promise<number>
  const burst: Pusher = (send) => push(send, MESSAGES)
  const paced: Pusher = (send) => pushPaced(send, MESSAGES, PACED_RATE)
  try {
    const [appPhone, rawPhone, appContact, rawContact] = [phone(), phone(), phone(), phone()]
    const [pgPhone, pgContact] = [phone(), phone()]
    await sandbox.addContact(appContact)
    await sandbox.addContact(rawContact)
    await sandbox.addContact(pgContact)
    const { instanceId } = await linkAppInstance(app, link, appPhone)
    if (pgApp && pgReceiver) {
      const pg = await linkAppInstance(pgApp, link, pgPhone)
      await pgApp.call('set_webhook', {
        instance_id: pg.instanceId,
        webhook_url: pgReceiver.url,
        enable: true,
      })
      await push((text) => sandbox.send(pgContact, pgPhone, text), Math.min(200, MESSAGES))
      await pgReceiver.collect(Math.min(200, MESSAGES))
    }
    await raw.link(link, rawPhone)
    const setWebhook = (batchSize: number) =>
      app.call('set_webhook', {
        instance_id: instanceId,
        webhook_url: receiver.url,
        enable: true,
        batch_size: batchSize,
      })
    await setWebhook(1)
    const warmup = Math.min(200, MESSAGES)
    await push((text) => sandbox.send(appContact, appPhone, text), warmup)
    await receiver.collect(warmup)
    await push((text) => sandbox.send(rawContact, rawPhone, text), warmup)
    await raw.call({ cmd: 'received', count: warmup, timeoutMs: 60_000 })

    /** One measured phase of an app: its contact pushes, its receiver collects, the app's CPU is counted. */
    const runOn = async (
      side: { app: AppProcess; receiver: ReceiverProcess; contact: string; phone: string },
      pusher: Pusher,
      into: Phase[],
    ) => {
      await sleep(500)
      const cpu = cpuSeconds(side.app.process.pid)
      const startedAt = await pusher((text) => sandbox.send(side.contact, side.phone, text))
      const report = await side.receiver.collect(MESSAGES)
      await sleep(500)
      into.push(phase(report, startedAt, cpuSeconds(side.app.process.pid) - cpu))
    }
    const runApp = (pusher: Pusher, into: Phase[]) =>
      runOn({ app, receiver, contact: appContact, phone: appPhone }, pusher, into)
    // The diagnosis watches the same path on the live stream too, in phases of its own: a stream client costs
    // the app a socket write per event, which the measured phases do not pay.
    const runDiagnosis = async (pusher: Pusher, emitted: Phase[]) => {
      const live = await followLiveStream(app.apiBase, app.token, 'message.received')
      try {
        await sleep(500)
        live.take()
        const cpu = cpuSeconds(app.process.pid)
        const startedAt = await pusher((text) => sandbox.send(appContact, appPhone, text))
        await receiver.collect(MESSAGES)
        await sleep(500)
        emitted.push(phase(live.take(), startedAt, cpuSeconds(app.process.pid) - cpu))
      } finally {
        live.close()
      }
    }
    const runRaw = async (pusher: Pusher, into: Phase[]) => {
      await sleep(500)
      const cpu = cpuSeconds(raw.pid)
      const startedAt = await pusher((text) => sandbox.send(rawContact, rawPhone, text))
      const report = await raw.call<{ latencies: number[]; lastAt: number }>({
        cmd: 'received',
        count: MESSAGES,
        timeoutMs: 120_000,
      })
      await sleep(500)
      into.push(phase(report, startedAt, cpuSeconds(raw.pid) - cpu))
    }
    const runPostgres = async (pusher: Pusher, into: Phase[]) => {
      if (pgApp && pgReceiver)
        await runOn({ app: pgApp, receiver: pgReceiver, contact: pgContact, phone: pgPhone }, pusher, into)
    }
    for (let round = 0; round < rounds; round++) {
      await runPostgres(burst, results.postgres)
      await runPostgres(paced, results['postgres paced'])
      for (const [pusher, appInto, rawInto, emitted] of [
        [burst, results.app, results.raw, results.emitted],
        [paced, results['app paced'], results['raw paced'], results['emitted paced']],
      ] as const) {
        if (round % 2 === 0) await runApp(pusher, appInto).then(() => runRaw(pusher, rawInto))
        else await runRaw(pusher, rawInto).then(() => runApp(pusher, appInto))
        await runDiagnosis(pusher, emitted)
      }
      await setWebhook(BATCH)
      await runApp(burst, results['app batched'])
      await setWebhook(1)
    }
  } finally {
    receiver.stop()
    pgReceiver?.stop()
    await Promise.all([app.stop(), raw.stop(), pgApp?.stop()])
    postgres?.server.stop()
  }
  const s = (side: keyof typeof results, pick: (p: Phase) => number, digits = 0) =>
    formatSpread(spread(results[side].map(pick)), digits)
  const appRate = spread(results.app.map((p) => p.perSecond)).median
  const rawRate = spread(results.raw.map((p) => p.perSecond)).median
  const batchedRate = spread(results['app batched'].map((p) => p.perSecond)).median
  const appP99 = spread(results['app paced'].map((p) => p.p99)).median
  const perSecond = (side: keyof typeof results) => {
    const { median, min, max } = spread(results[side].map((p) => p.perSecond))
    return `${median.toFixed(0)}/s (${min.toFixed(0)}–${max.toFixed(0)})`
  }
  const p99 = (side: keyof typeof results) => spread(results[side].map((p) => p.p99)).median
  const emittedRate = spread(results.emitted.map((p) => p.perSecond)).median
  target({
    figure: 'receive, burst → `message.received` at the webhook',
    app: `${perSecond('app')} (emitted at ${emittedRate.toFixed(0)}/s); batched ${perSecond('app batched')}`,
    beside: `raw upserts ${rawRate.toFixed(0)}/s`,
    target:
      `≥ 0.8× raw: ${metOrMissed(appRate >= 0.8 * rawRate)} (${(appRate / rawRate).toFixed(2)}×; ` +
      `batched ${(batchedRate / rawRate).toFixed(2)}×)`,
  })
  target({
    figure: `receive, paced at ${PACED_RATE}/s → webhook`,
    app: `p50 ${spread(results['app paced'].map((p) => p.p50)).median.toFixed(1)} ms, p99 ${appP99.toFixed(1)} ms`,
    beside: `raw upsert p99 ${p99('raw paced').toFixed(1)} ms`,
    target: `p99 ≤ 50 ms: ${metOrMissed(appP99 <= 50)}`,
  })
  if (postgres) {
    const pgRate = spread(results.postgres.map((p) => p.perSecond)).median
    const pgP99 = p99('postgres paced')
    target({
      figure: 'receive on PostgreSQL (`--store`), burst and paced → webhook',
      app: `${perSecond('postgres')}; paced p99 ${pgP99.toFixed(1)} ms`,
      beside: `the app on LMDB ${appRate.toFixed(0)}/s, paced p99 ${appP99.toFixed(1)} ms`,
      target:
        `≥ 0.7× LMDB, p99 ≤ 100 ms: ${metOrMissed(pgRate >= 0.7 * appRate && pgP99 <= 100)} ` +
        `(${(pgRate / appRate).toFixed(2)}×, ${pgP99.toFixed(0)} ms)`,
    })
  }
  const row = (side: keyof typeof results, label: string) => [
    label,
    s(side, (p) => p.perSecond),
    s(side, (p) => p.p50, 1),
    s(side, (p) => p.p99, 1),
    s(side, (p) => p.cpuPer1000, 2),
  ]
  return [
    `## Receive: ${MESSAGES} texts pushed by a sandbox contact (${PUSHERS} control requests in flight), ${rounds} rounds`,
    '',
    markdownTable(
      ['side', 'events/s', 'p50 ms', 'p99 ms', 'CPU s / 1000'],
      [
        row('app', 'burst: app, `message.received` webhook at a receiver process'),
        row('app batched', `burst: app, the same webhook with batch_size ${BATCH} (opt-in)`),
        row('raw', 'burst: raw, `messages.upsert` (notify) in the raw process'),
        row(
          'emitted',
          'diagnosis, burst: app, the event on the live stream (SSE), before delivery (own phase)',
        ),
        ...(postgres
          ? [row('postgres', 'burst: app on PostgreSQL (--store), the same webhook, own receiver and phase')]
          : []),
        row('app paced', `paced at ${PACED_RATE}/s: app webhook`),
        row('raw paced', `paced at ${PACED_RATE}/s: raw upsert`),
        row('emitted paced', `diagnosis, paced: app, the event on the live stream (own phase)`),
        ...(postgres ? [row('postgres paced', `paced at ${PACED_RATE}/s: app on PostgreSQL`)] : []),
      ],
    ),
    '',
    `Targets: burst ≥ 0.8× raw's receive rate ${verdict(appRate >= 0.8 * rawRate, `${(appRate / rawRate).toFixed(2)}× (${appRate.toFixed(0)}/s vs ${rawRate.toFixed(0)}/s)`)}; ` +
      `with batch_size ${BATCH} ${verdict(batchedRate >= 0.8 * rawRate, `${(batchedRate / rawRate).toFixed(2)}×`)}; ` +
      `p99 ≤ 50 ms (paced, below capacity) ${verdict(appP99 <= 50, `${appP99.toFixed(1)} ms`)}.`,
    postgres
      ? `On PostgreSQL (a local cluster with its defaults, on the same 2 vCPUs; the app commits with synchronous_commit off, as without --fsync): burst ${(spread(results.postgres.map((p) => p.perSecond)).median / appRate).toFixed(2)}× the app on LMDB.`
      : 'PostgreSQL is not installed here: no PostgreSQL rows.',
    'In a burst the contact pushes as fast as the sandbox takes requests; latency then includes the backlog.',
    "Latency runs from just before the contact's control request to the receiver (app) or the upsert (raw), on " +
      'one clock. Both sides get the same pushes; the raw row is the limit the sandbox and Baileys set together.',
  ].join('\n')
}

if (isEntry(import.meta.url)) runMain('receive', receiveFigure)
