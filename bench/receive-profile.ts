// Receive, profiled: where each side's main thread spends its CPU per incoming message of a burst, from
// `--cpu-prof` of both processes cut to the measured phase. The diagnosis behind the Receive figure's gap.
//
//   BENCH_MESSAGES=1000 npm run bench:receive-profile   (BENCH_KEEP_PROFILES=1 keeps the .cpuprofile files,
//   for bench/profile-summary.ts; BENCH_RECEIVE_BATCH=100 profiles the batched webhook instead;
//   BENCH_RECEIVE_STORE=postgres runs the app on a local PostgreSQL, as the Receive figure's PostgreSQL rows)
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { linkAppInstance, newDataDir, startApp } from './harness/app'
import {
  CATEGORIES,
  cpuBudget,
  monotonicUs,
  readMainThreadProfile,
  type CpuBudget,
} from './harness/cpu-budget'
import { isEntry, runMain, type Figure } from './harness/figure'
import { benchPostgres } from './harness/postgres'
import { sleep } from './harness/stats'
import { markdownTable } from './harness/table'
import { RawProcess } from './raw/raw-client'
import { ReceiverProcess } from './webhook-delivery'

const MESSAGES = Number(process.env.BENCH_MESSAGES ?? 1000)
const WARMUP = 200
/** Control requests in flight, as in the Receive figure. */
const PUSHERS = 16
const BATCH = Number(process.env.BENCH_RECEIVE_BATCH ?? 1)
const ON_POSTGRES = process.env.BENCH_RECEIVE_STORE === 'postgres'

async function push(send: (text: string) => Promise<string>, count: number): Promise<void> {
  let next = 0
  const lane = async (): Promise<void> => {
    while (next < count) {
      next++
      await send(`bench:${Date.now()} message ${next}`)
    }
  }
  await Promise.all(Array.from({ length: PUSHERS }, lane))
}

export const receiveProfileFigure: Figure = async ({ sandbox, phone }) => {
  const profileDir = mkdtempSync(join(tmpdir(), 'linkdesk-bench-profiles-'))
  const receiver = await ReceiverProcess.start()
  const postgres = ON_POSTGRES ? await benchPostgres() : undefined
  if (ON_POSTGRES && !postgres)
    throw new Error('BENCH_RECEIVE_STORE=postgres: PostgreSQL is not installed here')
  try {
    const app = await startApp(sandbox.controlUrl, newDataDir(), {
      profileDir,
      ...(postgres && { store: postgres.url }),
    })
    const raw = await RawProcess.start(sandbox.wsUrl, sandbox.rootKeyHex, { profileDir })
    const [appPhone, appContact, rawPhone, rawContact] = [phone(), phone(), phone(), phone()]
    await sandbox.addContact(appContact)
    await sandbox.addContact(rawContact)
    const link = (qr: string, number: string) => sandbox.link(qr, number)
    const { instanceId } = await linkAppInstance(app, link, appPhone)
    await raw.link(link, rawPhone)
    await app.call('set_webhook', {
      instance_id: instanceId,
      webhook_url: receiver.url,
      enable: true,
      batch_size: BATCH,
    })
    await push((text) => sandbox.send(appContact, appPhone, text), WARMUP)
    await receiver.collect(WARMUP)
    await push((text) => sandbox.send(rawContact, rawPhone, text), WARMUP)
    await raw.call({ cmd: 'received', count: WARMUP, timeoutMs: 60_000 })

    const window = async (run: () => Promise<unknown>) => {
      await sleep(500)
      const from = monotonicUs()
      await run()
      return { from, to: monotonicUs() }
    }
    // The app's phase lasts until its receiver got the last event; raw's until its last upsert.
    const appWindow = await window(async () => {
      await push((text) => sandbox.send(appContact, appPhone, text), MESSAGES)
      await receiver.collect(MESSAGES)
    })
    const rawWindow = await window(async () => {
      await push((text) => sandbox.send(rawContact, rawPhone, text), MESSAGES)
      await raw.call({ cmd: 'received', count: MESSAGES, timeoutMs: 120_000 })
    })
    await sleep(500)
    const [appPid, rawPid] = [app.process.child.pid ?? 0, raw.pid]
    await Promise.all([app.stop(), raw.stop()])
    if (process.env.BENCH_KEEP_PROFILES) {
      const windows = { [appPid]: appWindow, [rawPid]: rawWindow }
      writeFileSync(join(profileDir, 'windows.json'), JSON.stringify(windows))
    }
    const appBudget = cpuBudget(readMainThreadProfile(profileDir, appPid), appWindow.from, appWindow.to)
    const rawBudget = cpuBudget(readMainThreadProfile(profileDir, rawPid), rawWindow.from, rawWindow.to)
    return section(appBudget, rawBudget, appWindow, rawWindow)
  } finally {
    receiver.stop()
    postgres?.server.stop()
    if (process.env.BENCH_KEEP_PROFILES) process.stdout.write(`profiles kept in ${profileDir}\n`)
    else rmSync(profileDir, { recursive: true, force: true })
  }
}

function section(
  app: CpuBudget,
  raw: CpuBudget,
  appWindow: { from: number; to: number },
  rawWindow: { from: number; to: number },
): string {
  const cell = (ms: number) => (ms / MESSAGES).toFixed(3)
  const rows = CATEGORIES.map((category) => {
    const [a, r] = [app.byCategory.get(category) ?? 0, raw.byCategory.get(category) ?? 0]
    return [category, cell(a), cell(r), `${a - r >= 0 ? '+' : ''}${cell(a - r)}`]
  })
  const cycle = (w: { from: number; to: number }) => (w.to - w.from) / 1000 / MESSAGES
  rows.push([
    '**main thread busy**',
    `**${cell(app.busyMs)}**`,
    `**${cell(raw.busyMs)}**`,
    `**+${cell(app.busyMs - raw.busyMs)}**`,
  ])
  rows.push(['main thread idle', cell(app.idleMs), cell(raw.idleMs), ''])
  rows.push([
    'wall time per message (burst)',
    cycle(appWindow).toFixed(3),
    cycle(rawWindow).toFixed(3),
    `+${(cycle(appWindow) - cycle(rawWindow)).toFixed(3)}`,
  ])
  return [
    `## Receive, profiled${ON_POSTGRES ? ' (the app on PostgreSQL)' : ''}: main-thread CPU per incoming message of a burst (ms), ${MESSAGES} messages each side`,
    '',
    "Both processes run with `--cpu-prof`; each profile is cut to its side's measured phase. App: a sandbox " +
      `contact pushes ${MESSAGES} texts (${PUSHERS} control requests in flight), the phase lasts until a webhook ` +
      `receiver (batch_size ${BATCH}) got the last \`message.received\`. Raw: the same pushes to a raw Baileys ` +
      'socket, until its last `messages.upsert`. Built-in frames count for their nearest caller with a category.',
    '',
    markdownTable(['where', 'app ms/message', 'raw ms/message', 'app − raw'], rows),
  ].join('\n')
}

if (isEntry(import.meta.url)) runMain('receive-profile', receiveProfileFigure)
