// Send: send_message over HTTP (pacing off) beside raw Baileys sendMessage, both to an established contact.
import { linkAppInstance, newDataDir, startApp, tmpfsDataDir, type AppProcess } from './harness/app'
import { isEntry, runMain, type Figure, type FigureContext } from './harness/figure'
import { cpuSeconds } from './harness/proc'
import { percentile, sleep, spread } from './harness/stats'
import { formatSpread, markdownTable, verdict } from './harness/table'
import { postJson } from './harness/http'
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

/** Runs `send(n)` for n = 1..count with `concurrency` in flight; answers each call's latency and the wall time. */
async function inFlight(count: number, concurrency: number, send: (n: number) => Promise<void>) {
  const latencies: number[] = []
  let next = 0
  const lane = async (): Promise<void> => {
    while (next < count) {
      next++
      const started = performance.now()
      await send(next)
      latencies.push(performance.now() - started)
    }
  }
  const started = performance.now()
  await Promise.all(Array.from({ length: concurrency }, lane))
  return { latencies, seconds: (performance.now() - started) / 1000 }
}

/** `count` send_message calls with `concurrency` in flight; each call answers once the server acked. */
function appSends(app: AppProcess, instanceId: string, to: string, count: number, concurrency: number) {
  return inFlight(count, concurrency, async (n) => {
    const { status, body } = await app.raw('send_message', {
      instance_id: instanceId,
      number: to,
      type: 'text',
      message: `bench ${n}`,
    })
    if (status !== 200) throw new Error(`send_message: ${status} ${JSON.stringify(body).slice(0, 300)}`)
  })
}

/** `count` sends through the reference server (HTTP over raw Baileys), `concurrency` in flight. */
function referenceSends(port: number, slot: number, to: string, count: number, concurrency: number) {
  return inFlight(count, concurrency, async (n) => {
    const { status, body } = await postJson(`http://127.0.0.1:${port}/send`, { slot, to, text: `bench ${n}` })
    if (status !== 200) throw new Error(`reference send: ${status} ${JSON.stringify(body).slice(0, 300)}`)
  })
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

/** An app process with one instance linked and an established contact, ready to send. */
interface Sender {
  app: AppProcess
  instanceId: string
  contact: string
}

async function prepareApp(
  sandbox: FigureContext['sandbox'],
  phone: () => string,
  dataDir: string,
  warmup: number,
): Promise<Sender> {
  const app = await startApp(sandbox.controlUrl, dataDir)
  const [own, contact] = [phone(), phone()]
  await sandbox.addContact(contact)
  const { instanceId } = await linkAppInstance(app, (qr, number) => sandbox.link(qr, number), own)
  // Establish the session as a conversation does: we write, the contact answers, then a warm-up burst.
  await appSends(app, instanceId, contact, 1, 1)
  await sandbox.send(contact, own, 'hello back')
  await sleep(300)
  await appSends(app, instanceId, contact, warmup, Math.min(10, warmup))
  return { app, instanceId, contact }
}

export const sendFigure: Figure = async ({ sandbox, rounds, phone }) => {
  const link = (qr: string, phoneNumber: string) => sandbox.link(qr, phoneNumber)
  const results = new Map<string, Phase[]>()
  const record = (key: string, phase: Phase) => results.set(key, [...(results.get(key) ?? []), phase])
  const raw = await RawProcess.start(sandbox.wsUrl, sandbox.rootKeyHex)
  const senders: Sender[] = []
  try {
    const main = await prepareApp(sandbox, phone, newDataDir(), WARMUP)
    const onTmpfs = await prepareApp(sandbox, phone, tmpfsDataDir(), WARMUP)
    senders.push(main, onTmpfs)
    const [rawPhone, rawContact] = [phone(), phone()]
    await sandbox.addContact(rawContact)
    const { slot } = await raw.link(link, rawPhone)
    const rawTo = `${rawContact}@s.whatsapp.net`
    await raw.send(slot, rawTo, 1, 1, 'acked')
    await sandbox.send(rawContact, rawPhone, 'hello back')
    await sleep(300)
    await raw.send(slot, rawTo, WARMUP, 10, 'acked')
    const { port: referencePort } = await raw.call<{ port: number }>({ cmd: 'serve' })
    await referenceSends(referencePort, slot, rawTo, WARMUP, 10)

    const appPhase = (sender: Sender, count: number, concurrency: number) =>
      measure(sender.app.process.pid, () =>
        appSends(sender.app, sender.instanceId, sender.contact, count, concurrency),
      )
    const rawPhase = (concurrency: number, mode: 'written' | 'acked') =>
      measure(raw.pid, async () => {
        const result = await raw.send(slot, rawTo, SENDS, concurrency, mode)
        return { latencies: mode === 'written' ? result.written : result.acked, seconds: result.seconds }
      })
    for (let round = 0; round < rounds; round++) {
      for (const concurrency of [1, 10]) {
        const runApp = async () => record(`${concurrency}/app`, await appPhase(main, SENDS, concurrency))
        const runRaw = async () => {
          record(`${concurrency}/raw written`, await rawPhase(concurrency, 'written'))
          record(`${concurrency}/raw acked`, await rawPhase(concurrency, 'acked'))
          record(
            `${concurrency}/reference`,
            await measure(raw.pid, () => referenceSends(referencePort, slot, rawTo, SENDS, concurrency)),
          )
        }
        if (round % 2 === 0) await runApp().then(runRaw)
        else await runRaw().then(runApp)
        record(`${concurrency}/app on tmpfs`, await appPhase(onTmpfs, SENDS, concurrency))
      }
    }
  } finally {
    await Promise.all([raw.stop(), ...senders.map((sender) => sender.app.stop())])
  }

  const figure = (key: string, pick: (p: Phase) => number) => spread((results.get(key) ?? []).map(pick))
  const row = (scenario: string, key: string, label: string) => [
    scenario,
    label,
    formatSpread(figure(key, (p) => p.perSecond)),
    formatSpread(
      figure(key, (p) => p.p50),
      2,
    ),
    formatSpread(
      figure(key, (p) => p.p99),
      2,
    ),
    formatSpread(
      figure(key, (p) => p.cpuPer1000),
      2,
    ),
  ]
  const rows: string[][] = []
  const notes: string[] = []
  for (const concurrency of [1, 10]) {
    const scenario = concurrency === 1 ? 'sequential' : '10 in flight'
    rows.push(row(scenario, `${concurrency}/app`, 'app: send_message over HTTP, pacing off (answers on ack)'))
    rows.push(row(scenario, `${concurrency}/raw written`, 'raw: sendMessage resolved (written)'))
    rows.push(row(scenario, `${concurrency}/raw acked`, 'raw: server ack'))
    rows.push(
      row(
        scenario,
        `${concurrency}/reference`,
        'reference: HTTP over raw Baileys, own process (answers on ack)',
      ),
    )
    rows.push(row(scenario, `${concurrency}/app on tmpfs`, 'diagnosis: app, data dir on tmpfs (fsync free)'))
    const rate = (key: string) => figure(`${concurrency}/${key}`, (p) => p.perSecond).median
    const p50 = (key: string) => figure(`${concurrency}/${key}`, (p) => p.p50).median
    const added = p50('app') - p50('raw acked')
    const cpu = (key: string) => figure(`${concurrency}/${key}`, (p) => p.cpuPer1000).median
    notes.push(
      `- ${scenario}, against the reference server: throughput ${verdict(rate('app') >= 0.8 * rate('reference'), `${(rate('app') / rate('reference')).toFixed(2)}×`)} (target ≥ 0.8×); ` +
        `CPU per send ${verdict(cpu('app') <= 2 * cpu('reference'), `${(cpu('app') / cpu('reference')).toFixed(2)}×`)} (target ≤ 2×).`,
    )
    notes.push(
      `- ${scenario}: throughput ${verdict(rate('app') >= 0.8 * rate('raw written'), `${(rate('app') / rate('raw written')).toFixed(2)}× raw as written`)}, ` +
        `${verdict(rate('app') >= 0.8 * rate('raw acked'), `${(rate('app') / rate('raw acked')).toFixed(2)}× raw as acknowledged`)} (target ≥ 0.8×); ` +
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
    'The reference server is the smallest honest HTTP API over Baileys: one route in the raw process that calls ' +
      'sendMessage and answers on the server’s ack, with nothing stored and no events (the ceiling for any HTTP API ' +
      'over Baileys). Every process runs compiled JavaScript.',
    'The tmpfs row is the same app with its data dir on /dev/shm, where fsync costs nothing: the gap to the ' +
      'first row is the time the send path waits for disk flushes.',
    'Latency: app = the HTTP request from the bench client (undici, keep-alive); raw = from the sendMessage call, ' +
      'inside the raw process. Raw yields (setImmediate) between sends, as separate requests do. CPU: /proc utime+stime ' +
      `of each process over the phase plus ${SETTLE_MS} ms (the contact's receipts and the app's events included).`,
  ].join('\n')
}

if (isEntry(import.meta.url)) runMain('send', sendFigure)
