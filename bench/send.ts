// Send: send_message over HTTP (pacing off) beside raw Baileys sendMessage, both to an established contact.
import { linkAppInstance, startApp, type AppProcess } from './harness/app'
import { isEntry, runMain, type Figure } from './harness/figure'
import { cpuSeconds } from './harness/proc'
import { percentile, sleep, spread } from './harness/stats'
import { formatSpread, markdownTable, verdict } from './harness/table'
import { RawProcess } from './raw/raw-client'

const SENDS = Number(process.env.BENCH_SENDS ?? 1000)
const WARMUP = Math.min(200, SENDS)
/** CPU is read until this long after the last answer: receipts and events that follow the sends count too. */
const SETTLE_MS = 500

interface Phase {
  perSecond: number
  p50: number
  p99: number
  cpuPer1000: number
}

type Side = 'app' | 'raw written' | 'raw acked'

/** `count` send_message calls with `concurrency` in flight; each call answers once the server acked. */
async function appSends(app: AppProcess, instanceId: string, to: string, count: number, concurrency: number) {
  const latencies: number[] = []
  let next = 0
  const lane = async (): Promise<void> => {
    while (next < count) {
      next++
      const started = performance.now()
      const { status, body } = await app.raw('send_message', {
        instance_id: instanceId,
        number: to,
        type: 'text',
        message: `bench ${next}`,
      })
      if (status !== 200) throw new Error(`send_message: ${status} ${JSON.stringify(body).slice(0, 300)}`)
      latencies.push(performance.now() - started)
    }
  }
  const started = performance.now()
  await Promise.all(Array.from({ length: concurrency }, lane))
  return { latencies, seconds: (performance.now() - started) / 1000 }
}

async function measure(
  pid: number,
  run: () => Promise<{ latencies: number[]; seconds: number }>,
): Promise<Phase> {
  const cpuBefore = cpuSeconds(pid)
  const { latencies, seconds } = await run()
  await sleep(SETTLE_MS)
  return {
    perSecond: latencies.length / seconds,
    p50: percentile(latencies, 50),
    p99: percentile(latencies, 99),
    cpuPer1000: ((cpuSeconds(pid) - cpuBefore) / latencies.length) * 1000,
  }
}

export const sendFigure: Figure = async ({ sandbox, rounds, phone }) => {
  const app = await startApp(sandbox.controlUrl)
  const raw = await RawProcess.start(sandbox.wsUrl, sandbox.rootKeyHex)
  const link = (qr: string, phoneNumber: string) => sandbox.link(qr, phoneNumber)
  const results = new Map<string, Phase[]>()
  const record = (key: string, phase: Phase) => results.set(key, [...(results.get(key) ?? []), phase])
  try {
    const [appPhone, rawPhone, appContact, rawContact] = [phone(), phone(), phone(), phone()]
    await sandbox.addContact(appContact)
    await sandbox.addContact(rawContact)
    const { instanceId } = await linkAppInstance(app, link, appPhone)
    const { slot } = await raw.link(link, rawPhone)
    const rawTo = `${rawContact}@s.whatsapp.net`
    // Establish both sessions as a conversation does: we write, the contact answers, then a warm-up burst.
    await appSends(app, instanceId, appContact, 1, 1)
    await raw.send(slot, rawTo, 1, 1, 'acked')
    await sandbox.send(appContact, appPhone, 'hello back')
    await sandbox.send(rawContact, rawPhone, 'hello back')
    await sleep(500)
    await appSends(app, instanceId, appContact, WARMUP, 10)
    await raw.send(slot, rawTo, WARMUP, 10, 'acked')

    const rawPhase = (concurrency: number, mode: 'written' | 'acked') =>
      measure(raw.pid, async () => {
        const result = await raw.send(slot, rawTo, SENDS, concurrency, mode)
        return { latencies: mode === 'written' ? result.written : result.acked, seconds: result.seconds }
      })
    for (let round = 0; round < rounds; round++) {
      for (const concurrency of [1, 10]) {
        const appFirst = round % 2 === 0
        const runApp = async () =>
          record(
            `${concurrency}/app`,
            await measure(app.process.pid, () => appSends(app, instanceId, appContact, SENDS, concurrency)),
          )
        const runRaw = async () => {
          record(`${concurrency}/raw written`, await rawPhase(concurrency, 'written'))
          record(`${concurrency}/raw acked`, await rawPhase(concurrency, 'acked'))
        }
        if (appFirst) await runApp().then(runRaw)
        else await runRaw().then(runApp)
      }
    }
  } finally {
    await Promise.all([app.stop(), raw.stop()])
  }

  const figure = (concurrency: number, side: Side, pick: (p: Phase) => number) =>
    spread((results.get(`${concurrency}/${side}`) ?? []).map(pick))
  const rows: string[][] = []
  const notes: string[] = []
  for (const concurrency of [1, 10]) {
    for (const side of ['app', 'raw written', 'raw acked'] as const) {
      rows.push([
        concurrency === 1 ? 'sequential' : '10 in flight',
        side === 'app'
          ? 'app: send_message over HTTP (answers on ack)'
          : side === 'raw written'
            ? 'raw: sendMessage resolved (written)'
            : 'raw: server ack',
        formatSpread(figure(concurrency, side, (p) => p.perSecond)),
        formatSpread(
          figure(concurrency, side, (p) => p.p50),
          2,
        ),
        formatSpread(
          figure(concurrency, side, (p) => p.p99),
          2,
        ),
        formatSpread(
          figure(concurrency, side, (p) => p.cpuPer1000),
          2,
        ),
      ])
    }
    const appRate = figure(concurrency, 'app', (p) => p.perSecond).median
    const writtenRate = figure(concurrency, 'raw written', (p) => p.perSecond).median
    const ackedRate = figure(concurrency, 'raw acked', (p) => p.perSecond).median
    const added =
      figure(concurrency, 'app', (p) => p.p50).median - figure(concurrency, 'raw acked', (p) => p.p50).median
    const label = concurrency === 1 ? 'Sequential' : '10 in flight'
    notes.push(
      `- ${label}: throughput ${verdict(appRate >= 0.8 * writtenRate, `${(appRate / writtenRate).toFixed(2)}× raw as written`)}, ` +
        `${verdict(appRate >= 0.8 * ackedRate, `${(appRate / ackedRate).toFixed(2)}× raw as acknowledged`)} (target ≥ 0.8×); ` +
        `p50 ${verdict(added <= 1, `${added >= 0 ? '+' : ''}${added.toFixed(2)} ms over raw-acknowledged`)} (target ≤ +1 ms).`,
    )
  }
  return [
    `## Send: ${SENDS} texts per phase to an established contact, ${rounds} rounds`,
    '',
    markdownTable(['scenario', 'side', 'msgs/s', 'p50 ms', 'p99 ms', 'CPU s / 1000 sends'], rows),
    '',
    ...notes,
    '',
    'Latency: app = the HTTP request from the bench client (undici, keep-alive); raw = from the sendMessage call, ' +
      'inside the raw process. Raw yields (setImmediate) between sends, as separate requests do. CPU: /proc utime+stime ' +
      `of each process over the phase plus ${SETTLE_MS} ms (the contact's receipts and the app's events included).`,
  ].join('\n')
}

if (isEntry(import.meta.url)) runMain('send', sendFigure)
