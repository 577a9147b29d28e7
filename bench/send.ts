// Send: send_message over HTTP (pacing off, a webhook receiving every event) beside the reference server (HTTP
// over raw Baileys) and raw Baileys' sendMessage in process, all to established contacts of the same sandbox.
import {
  linkAppInstance,
  newDataDir,
  startApp,
  tmpfsDataDir,
  webhooksDrained,
  type AppProcess,
} from './harness/app'
import {
  isEntry,
  metOrMissed,
  runMain,
  type Figure,
  type FigureContext,
  type TargetRow,
} from './harness/figure'
import { postJson } from './harness/http'
import { cpuSeconds } from './harness/proc'
import { percentile, sleep, spread, wallClock, type Spread } from './harness/stats'
import { formatSpread, markdownTable, verdict } from './harness/table'
import { RawProcess } from './raw/raw-client'
import { benchPostgres } from './harness/postgres'
import { ReceiverProcess } from './webhook-delivery'

const SENDS = Number(process.env.BENCH_SENDS ?? 1000)
const WARMUP = Math.min(200, SENDS)
/** Chats of the parallel scenario, and instances of the fleet scenario. */
const WIDTH = 10
/** The reference's CPU is read until this long after its last answer: the contacts' receipts count too. */
const SETTLE_MS = 500
/** The batch_size of the batched rows. */
const BATCH = 100

type Scenario = 'sequential' | 'chats' | 'fleet'
const ALL_SCENARIOS: Record<Scenario, string> = {
  sequential: 'sequential, one chat',
  chats: `${WIDTH} in flight, to ${WIDTH} chats of one account`,
  fleet: `${WIDTH} accounts in parallel, each sequential`,
}
/** BENCH_SEND_SCENARIOS=sequential,chats runs a subset (all three by default). */
const chosen = process.env.BENCH_SEND_SCENARIOS?.split(',')
const SCENARIOS = Object.fromEntries(
  Object.entries(ALL_SCENARIOS).filter(([name]) => !chosen || chosen.includes(name)),
) as Partial<Record<Scenario, string>>

interface Phase {
  perSecond: number
  p50: number
  p99: number
  cpuPer1000: number
  /** Webhook events received per send (the app with a webhook). */
  eventsPerSend?: number
}

interface Timed {
  latencies: number[]
  /** Wall clock (ms) when the phase started. */
  startedAt: number
  /** Wall clock (ms) when the last call was answered. */
  answeredAt: number
}

/** Runs `lanes` loops in parallel until `count` calls were made; call n goes through `send(n, lane)`. */
async function inFlight(
  count: number,
  lanes: number,
  send: (n: number, lane: number) => Promise<void>,
): Promise<Timed> {
  const latencies: number[] = []
  let next = 0
  const lane = async (_: unknown, index: number): Promise<void> => {
    while (next < count) {
      next++
      const started = performance.now()
      await send(next, index)
      latencies.push(performance.now() - started)
    }
  }
  const startedAt = wallClock()
  await Promise.all(Array.from({ length: lanes }, lane))
  return { latencies, startedAt, answeredAt: wallClock() }
}

/** One account of the app: its instance and its established contacts (phone numbers). */
interface AppAccount {
  instanceId: string
  chats: string[]
}

/** An app process with its webhook receiver (none for the no-webhook diagnosis). */
interface AppSide {
  app: AppProcess
  receiver?: ReceiverProcess
  accounts: AppAccount[]
}

async function appSend(app: AppProcess, instanceId: string, to: string, n: number): Promise<void> {
  const { status, body } = await app.raw('send_message', {
    instance_id: instanceId,
    number: to,
    type: 'text',
    message: `bench ${n}`,
  })
  if (status !== 200) throw new Error(`send_message: ${status} ${JSON.stringify(body).slice(0, 300)}`)
}

/**
 * The sends of a scenario over a side's accounts (the first has WIDTH chats, the others one): sequential to the
 * first chat, lane n to chat n of the first account, or lane n to account n.
 */
function scenarioSends<A extends { chats: string[] }>(
  accounts: readonly A[],
  scenario: Scenario,
  count: number,
  send: (account: A, chat: string, n: number) => Promise<void>,
): Promise<Timed> {
  const chatOf = (account: A | undefined, index: number): [A, string] => {
    const chat = account?.chats[index]
    if (!account || chat === undefined) throw new Error(`${scenario}: no account or chat at lane ${index}`)
    return [account, chat]
  }
  const lanes = scenario === 'sequential' ? 1 : WIDTH
  return inFlight(count, lanes, (n, lane) => {
    const [account, chat] =
      scenario === 'fleet' ? chatOf(accounts[lane], 0) : chatOf(accounts[0], scenario === 'chats' ? lane : 0)
    return send(account, chat, n)
  })
}

function appSends(side: AppSide, scenario: Scenario, count: number): Promise<Timed> {
  return scenarioSends(side.accounts, scenario, count, (account, chat, n) =>
    appSend(side.app, account.instanceId, chat, n),
  )
}

/** The raw process's accounts: slot and contact chat id of each, the first with WIDTH contacts. */
interface RawSide {
  raw: RawProcess
  referencePort: number
  slots: Array<{ slot: number; chats: string[] }>
}

function referenceSends(side: RawSide, scenario: Scenario, count: number): Promise<Timed> {
  return scenarioSends(side.slots, scenario, count, async ({ slot }, to, n) => {
    const url = `http://127.0.0.1:${side.referencePort}/send`
    const { status, body } = await postJson(url, { slot, to, text: `bench ${n}` })
    if (status !== 200) throw new Error(`reference send: ${status} ${JSON.stringify(body).slice(0, 300)}`)
  })
}

/** A phase of the app: the sends, then (with a webhook) until the receiver got the last event. */
async function appPhase(side: AppSide, scenario: Scenario, count: number): Promise<Phase> {
  await side.receiver?.take()
  const pid = side.app.process.pid
  const cpuBefore = cpuSeconds(pid)
  const timed = await appSends(side, scenario, count)
  const { lastAt, received } = await webhooksDrained(side.app, side.receiver)
  const endedAt = Math.max(timed.answeredAt, lastAt)
  return {
    perSecond: timed.latencies.length / ((endedAt - timed.startedAt) / 1000),
    p50: percentile(timed.latencies, 50),
    p99: percentile(timed.latencies, 99),
    cpuPer1000: ((cpuSeconds(pid) - cpuBefore) / timed.latencies.length) * 1000,
    ...(side.receiver ? { eventsPerSend: received / timed.latencies.length } : {}),
  }
}

/** Sets the batch_size of every webhook of the side's instances (1: one event per POST, the default). */
async function setBatchSize(side: AppSide, batchSize: number): Promise<void> {
  for (const { instanceId } of side.accounts) {
    await side.app.call('set_webhook', {
      instance_id: instanceId,
      webhook_url: side.receiver?.url,
      enable: true,
      batch_size: batchSize,
    })
  }
}

/** A phase of the app with its webhooks taking batches of up to BATCH events (the opt-in for busy receivers). */
async function batchedPhase(side: AppSide, scenario: Scenario, count: number): Promise<Phase> {
  await setBatchSize(side, BATCH)
  try {
    return await appPhase(side, scenario, count)
  } finally {
    await setBatchSize(side, 1)
  }
}

/** A phase of the raw process (in-process sends or the reference server): until the last answer. */
async function rawPhase(pid: number, run: () => Promise<{ latencies: number[]; seconds: number }>) {
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

/**
 * Links `accounts` instances with `chats` established contacts each (we write, the contact answers, as a
 * conversation starts), points their webhooks at `receiver`, and warms the path up.
 */
async function prepareApp(
  sandbox: FigureContext['sandbox'],
  phone: () => string,
  options: { dataDir: string; receiver?: ReceiverProcess; accounts: number; chats: number; store?: string },
): Promise<AppSide> {
  const app = await startApp(sandbox.controlUrl, options.dataDir, { store: options.store })
  const side: AppSide = { app, ...(options.receiver ? { receiver: options.receiver } : {}), accounts: [] }
  for (let i = 0; i < options.accounts; i++) {
    const own = phone()
    const contacts = Array.from({ length: i === 0 ? options.chats : 1 }, phone)
    for (const contact of contacts) await sandbox.addContact(contact)
    const { instanceId } = await linkAppInstance(app, (qr, number) => sandbox.link(qr, number), own)
    if (options.receiver) {
      await app.call('set_webhook', {
        instance_id: instanceId,
        webhook_url: options.receiver.url,
        enable: true,
      })
    }
    await Promise.all(contacts.map((contact, n) => appSend(app, instanceId, contact, n)))
    await Promise.all(contacts.map((contact) => sandbox.send(contact, own, 'hello back')))
    side.accounts.push({ instanceId, chats: contacts })
  }
  await sleep(300)
  for (const scenario of [
    'sequential',
    'chats',
    ...(options.accounts > 1 ? ['fleet' as const] : []),
  ] as const)
    await appSends(side, scenario, WARMUP)
  await webhooksDrained(side.app, side.receiver)
  return side
}

async function prepareRaw(sandbox: FigureContext['sandbox'], phone: () => string): Promise<RawSide> {
  const raw = await RawProcess.start(sandbox.wsUrl, sandbox.rootKeyHex)
  const slots: RawSide['slots'] = []
  for (let i = 0; i < (SCENARIOS.fleet ? WIDTH : 1); i++) {
    const own = phone()
    const contacts = Array.from({ length: i === 0 ? WIDTH : 1 }, phone)
    for (const contact of contacts) await sandbox.addContact(contact)
    const { slot } = await raw.link((qr, number) => sandbox.link(qr, number), own)
    const chats = contacts.map((contact) => `${contact}@s.whatsapp.net`)
    await raw.send(slot, chats, chats.length, chats.length, 'acked')
    await Promise.all(contacts.map((contact) => sandbox.send(contact, own, 'hello back')))
    slots.push({ slot, chats })
  }
  await sleep(300)
  const { port: referencePort } = await raw.call<{ port: number }>({ cmd: 'serve' })
  const side = { raw, referencePort, slots }
  const first = slots[0] as RawSide['slots'][number]
  await raw.send(first.slot, first.chats, WARMUP, WIDTH, 'acked')
  for (const scenario of Object.keys(SCENARIOS) as Scenario[]) await referenceSends(side, scenario, WARMUP)
  return side
}

export const sendFigure: Figure = async ({ sandbox, rounds, phone, target }) => {
  const results = new Map<string, Phase[]>()
  const record = (key: string, phase: Phase) => results.set(key, [...(results.get(key) ?? []), phase])
  const receivers = [
    await ReceiverProcess.start(),
    await ReceiverProcess.start(),
    await ReceiverProcess.start(),
  ]
  const apps: AppSide[] = []
  let rawSide: RawSide | undefined
  const postgres = await benchPostgres()
  try {
    const [hooked, hookedOnTmpfs, hookedOnPostgres] = receivers as [
      ReceiverProcess,
      ReceiverProcess,
      ReceiverProcess,
    ]
    const main = await prepareApp(sandbox, phone, {
      dataDir: newDataDir(),
      receiver: hooked,
      accounts: SCENARIOS.fleet ? WIDTH : 1,
      chats: WIDTH,
    })
    apps.push(main)
    const onTmpfs = await prepareApp(sandbox, phone, {
      dataDir: tmpfsDataDir(),
      receiver: hookedOnTmpfs,
      accounts: 1,
      chats: WIDTH,
    })
    apps.push(onTmpfs)
    const unhooked = await prepareApp(sandbox, phone, { dataDir: newDataDir(), accounts: 1, chats: WIDTH })
    apps.push(unhooked)
    const onPostgres =
      postgres &&
      (await prepareApp(sandbox, phone, {
        dataDir: newDataDir(),
        receiver: hookedOnPostgres,
        accounts: 1,
        chats: WIDTH,
        store: postgres.url,
      }))
    if (onPostgres) apps.push(onPostgres)
    rawSide = await prepareRaw(sandbox, phone)
    const side = rawSide
    const first = side.slots[0] as RawSide['slots'][number]

    for (let round = 0; round < rounds; round++) {
      for (const scenario of Object.keys(SCENARIOS) as Scenario[]) {
        const runApp = async () => record(`${scenario}/app`, await appPhase(main, scenario, SENDS))
        const runRaw = async () => {
          record(
            `${scenario}/reference`,
            await rawPhase(side.raw.pid, async () => {
              const timed = await referenceSends(side, scenario, SENDS)
              return { latencies: timed.latencies, seconds: (timed.answeredAt - timed.startedAt) / 1000 }
            }),
          )
          if (scenario === 'fleet') return
          for (const mode of ['written', 'acked'] as const) {
            const lanes = scenario === 'sequential' ? 1 : WIDTH
            const chats = scenario === 'sequential' ? [first.chats[0] as string] : first.chats
            record(
              `${scenario}/raw ${mode}`,
              await rawPhase(side.raw.pid, async () => {
                const result = await side.raw.send(first.slot, chats, SENDS, lanes, mode)
                return {
                  latencies: mode === 'written' ? result.written : result.acked,
                  seconds: result.seconds,
                }
              }),
            )
          }
        }
        if (round % 2 === 0) await runApp().then(runRaw)
        else await runRaw().then(runApp)
        record(`${scenario}/app batched`, await batchedPhase(main, scenario, SENDS))
        if (scenario === 'fleet') continue
        record(`${scenario}/app on tmpfs`, await appPhase(onTmpfs, scenario, SENDS))
        record(`${scenario}/app without webhook`, await appPhase(unhooked, scenario, SENDS))
        if (onPostgres) record(`${scenario}/app on postgres`, await appPhase(onPostgres, scenario, SENDS))
      }
    }
  } finally {
    for (const receiver of receivers) receiver.stop()
    await Promise.all([rawSide?.raw.stop(), ...apps.map((side) => side.app.stop())])
    postgres?.server.stop()
  }

  const figure = (key: string, pick: (p: Phase) => number) => spread((results.get(key) ?? []).map(pick))
  const rows: string[][] = []
  const notes: string[] = []
  for (const scenario of Object.keys(SCENARIOS) as Scenario[]) {
    const row = (side: string, label: string) => {
      const key = `${scenario}/${side}`
      if (!results.has(key)) return
      rows.push([
        SCENARIOS[scenario] ?? scenario,
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
        results.get(key)?.[0]?.eventsPerSend === undefined
          ? '–'
          : formatSpread(
              figure(key, (p) => p.eventsPerSend ?? NaN),
              1,
            ),
      ])
    }
    row('app', 'app: send_message, webhook on (until the last event is received)')
    row('app batched', `app: send_message, webhook on with batch_size ${BATCH} (opt-in)`)
    row('reference', 'reference: HTTP over raw Baileys, own process (answers on ack)')
    row('raw written', 'raw in process: sendMessage resolved (written)')
    row('raw acked', 'raw in process: server ack')
    row('app on tmpfs', 'diagnosis: app, webhook on, data dir on tmpfs (fsync free)')
    row('app without webhook', 'diagnosis: app, no webhook')
    row('app on postgres', 'app on PostgreSQL (--store), webhook on')
    const rate = (side: string) => figure(`${scenario}/${side}`, (p) => p.perSecond).median
    const cpu = (side: string) => figure(`${scenario}/${side}`, (p) => p.cpuPer1000).median
    const versus = (side: string) => `${(rate('app') / rate(side)).toFixed(2)}×`
    let note =
      `- ${SCENARIOS[scenario] ?? scenario}: app with a webhook ÷ reference server ` +
      `${verdict(rate('app') >= 0.8 * rate('reference'), versus('reference'))} (target ≥ 0.8×)`
    if (scenario === 'sequential') {
      note +=
        `; CPU per send ${verdict(cpu('app') <= 2 * cpu('reference'), `${(cpu('app') / cpu('reference')).toFixed(2)}×`)}` +
        ` the reference's (target ≤ 2×)`
    }
    if (results.has(`${scenario}/app batched`)) {
      const batched = rate('app batched') / rate('reference')
      note += `; with batch_size ${BATCH} ${verdict(batched >= 0.8, `${batched.toFixed(2)}×`)}`
    }
    if (results.has(`${scenario}/raw acked`)) note += `; ${versus('raw acked')} raw in process, acknowledged`
    if (results.has(`${scenario}/app on postgres`))
      note += `; on PostgreSQL ${(rate('app on postgres') / rate('app')).toFixed(2)}× the app on LMDB`
    notes.push(`${note}.`)
    target(sendTarget(scenario, results.has(`${scenario}/app batched`), figure))
  }
  return [
    `## Send: ${SENDS} texts per phase to established contacts, ${rounds} rounds`,
    '',
    markdownTable(
      ['scenario', 'side', 'msgs/s', 'p50 ms', 'p99 ms', 'CPU s / 1000 sends', 'webhook events / send'],
      rows,
    ),
    '',
    ...notes,
    '',
    'The app runs as users run it: pacing off and a webhook on every instance pointing at a receiver process ' +
      'that answers 200; its phase lasts until the receiver got the last event (the outbox empty, no event ' +
      `emitted for 300 ms), and its CPU counts the delivery. The reference server is the smallest honest HTTP ` +
      'API over Baileys: one route in the raw process that calls sendMessage and answers on the server’s ack, ' +
      'with nothing stored and no events (the ceiling for any HTTP API over Baileys). Every process runs ' +
      'compiled JavaScript.',
    'The tmpfs row is the same app with its data dir on /dev/shm, where fsync costs nothing; the no-webhook row ' +
      'is an app with no webhook, as the figures before issue 20 were measured.',
    'The PostgreSQL row is the same app started with `--store` on a local PostgreSQL cluster with its defaults, ' +
      'on the same machine (the app commits with synchronous_commit off, as without --fsync), one account, its ' +
      'own receiver.',
    'Latency: app = the HTTP request from the bench client (undici, keep-alive); raw = from the sendMessage call, ' +
      'inside the raw process. CPU: /proc utime+stime of each process over the phase (the reference and raw: plus ' +
      `${SETTLE_MS} ms, for the contacts' receipts).`,
  ].join('\n')
}

/** The summary line of one send scenario: the app beside the reference server and raw Baileys. */
function sendTarget(
  scenario: Scenario,
  batched: boolean,
  figure: (key: string, pick: (p: Phase) => number) => Spread,
): TargetRow {
  const rate = (side: string) => figure(`${scenario}/${side}`, (p) => p.perSecond)
  const cpu = (side: string) => figure(`${scenario}/${side}`, (p) => p.cpuPer1000).median
  const perSecond = (side: string) => {
    const { median, min, max } = rate(side)
    return `${median.toFixed(0)}/s (${min.toFixed(0)}–${max.toFixed(0)})`
  }
  const ratio = rate('app').median / rate('reference').median
  const cpuRatio = cpu('app') / cpu('reference')
  const sequential = scenario === 'sequential'
  const app = [`${perSecond('app')}, ${cpu('app').toFixed(1)} ms CPU per send`]
  if (batched) app.push(`batched ${perSecond('app batched')}`)
  const met = ratio >= 0.8 && (!sequential || cpuRatio <= 2)
  return {
    figure: `send, ${ALL_SCENARIOS[scenario]}, webhook on`,
    app: app.join('; '),
    beside:
      `reference ${rate('reference').median.toFixed(0)}/s, ${cpu('reference').toFixed(1)} ms` +
      (sequential ? `; raw in process, acknowledged ${rate('raw acked').median.toFixed(0)}/s` : ''),
    target:
      `≥ 0.8× reference${sequential ? ', CPU ≤ 2×' : ''}: ${metOrMissed(met)} (${ratio.toFixed(2)}×` +
      `${sequential ? `, ${cpuRatio.toFixed(2)}×` : ''}` +
      `${batched ? `; batched ${(rate('app batched').median / rate('reference').median).toFixed(2)}×` : ''})`,
  }
}

if (isEntry(import.meta.url)) runMain('send', sendFigure)
