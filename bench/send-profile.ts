// Send, profiled: where each side's main thread spends its CPU per sequential send, from `--cpu-prof` of both
// processes cut to the measured phase. This is the diagnosis behind the Send figure's gap.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { linkAppInstance, newDataDir, startApp, webhooksDrained } from './harness/app'
import {
  CATEGORIES,
  cpuBudget,
  monotonicUs,
  readMainThreadProfile,
  type CpuBudget,
} from './harness/cpu-budget'
import { isEntry, runMain, type Figure } from './harness/figure'
import { sleep } from './harness/stats'
import { markdownTable } from './harness/table'
import { RawProcess } from './raw/raw-client'
import { ReceiverProcess } from './webhook-delivery'

const SENDS = Number(process.env.BENCH_SENDS ?? 2000)
const WARMUP = 200

export const sendProfileFigure: Figure = async ({ sandbox, phone }) => {
  const profileDir = mkdtempSync(join(tmpdir(), 'linkdesk-bench-profiles-'))
  const receiver = await ReceiverProcess.start()
  try {
    const app = await startApp(sandbox.controlUrl, newDataDir(), { profileDir })
    const raw = await RawProcess.start(sandbox.wsUrl, sandbox.rootKeyHex, { profileDir })
    const [appPhone, appContact, rawPhone, rawContact] = [phone(), phone(), phone(), phone()]
    await sandbox.addContact(appContact)
    await sandbox.addContact(rawContact)
    const link = (qr: string, number: string) => sandbox.link(qr, number)
    const { instanceId } = await linkAppInstance(app, link, appPhone)
    const { slot } = await raw.link(link, rawPhone)
    const rawTo = `${rawContact}@s.whatsapp.net`
    await app.call('set_webhook', { instance_id: instanceId, webhook_url: receiver.url, enable: true })

    const appSend = async (count: number) => {
      for (let i = 0; i < count; i++) {
        const { status } = await app.raw('send_message', {
          instance_id: instanceId,
          number: appContact,
          type: 'text',
          message: `profile ${i}`,
        })
        if (status !== 200) throw new Error(`send_message answered ${status}`)
      }
    }
    // Establish both sessions as a conversation does, then warm up.
    await appSend(1)
    await raw.send(slot, rawTo, 1, 1, 'acked')
    await sandbox.send(appContact, appPhone, 'hello back')
    await sandbox.send(rawContact, rawPhone, 'hello back')
    await sleep(300)
    await appSend(WARMUP)
    await webhooksDrained(app, receiver)
    await raw.send(slot, rawTo, WARMUP, 1, 'acked')

    const window = async (run: () => Promise<unknown>) => {
      const from = monotonicUs()
      await run()
      return { from, to: monotonicUs() }
    }
    // The app's phase lasts until its webhook receiver got the last event of the sends.
    const appWindow = await window(async () => {
      await appSend(SENDS)
      await webhooksDrained(app, receiver, 100)
    })
    await sleep(500)
    const rawWindow = await window(() => raw.send(slot, rawTo, SENDS, 1, 'acked'))
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
    // BENCH_KEEP_PROFILES keeps the .cpuprofile files, for bench/profile-summary.ts.
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
  const perSend = (ms: number) => ms / SENDS
  const cell = (ms: number) => perSend(ms).toFixed(3)
  const rows = CATEGORIES.map((category) => {
    const [a, r] = [app.byCategory.get(category) ?? 0, raw.byCategory.get(category) ?? 0]
    return [category, cell(a), cell(r), `${perSend(a - r) >= 0 ? '+' : ''}${cell(a - r)}`]
  })
  const cycle = (w: { from: number; to: number }) => (w.to - w.from) / 1000 / SENDS
  rows.push([
    '**main thread busy**',
    `**${cell(app.busyMs)}**`,
    `**${cell(raw.busyMs)}**`,
    `**+${cell(app.busyMs - raw.busyMs)}**`,
  ])
  rows.push(['main thread idle', cell(app.idleMs), cell(raw.idleMs), ''])
  rows.push([
    'wall time per send (the cycle)',
    cycle(appWindow).toFixed(3),
    cycle(rawWindow).toFixed(3),
    `+${(cycle(appWindow) - cycle(rawWindow)).toFixed(3)}`,
  ])
  return [
    `## Send, profiled: main-thread CPU per sequential send (ms), ${SENDS} sends each side`,
    '',
    "Both processes run with `--cpu-prof`; each profile is cut to its side's measured phase (the profiles and " +
      "`process.hrtime` share CLOCK_MONOTONIC). App: `send_message` over HTTP, answered on the server's ack, with a webhook " +
      'receiving every event (the phase lasts until the last one arrived). ' +
      "Raw: `sendMessage` and the server's ack, in-process. Built-in frames count for their nearest caller " +
      'with a category (JSON.stringify called by the core counts as core), except syscalls and GC.',
    '',
    markdownTable(['where', 'app ms/send', 'raw ms/send', 'app − raw'], rows),
    '',
    'Profiling slows both sides alike; the Send figure above has the unprofiled rates. Idle is time the main ' +
      "thread waited: for the server's ack and, in the app, for the next HTTP request.",
  ].join('\n')
}

if (isEntry(import.meta.url)) runMain('send-profile', sendProfileFigure)
