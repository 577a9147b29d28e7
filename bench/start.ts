// Start: N linked accounts restored and connected after a restart of the app (seconds until all are
// connected, polling `instances`), beside a fresh raw process reconnecting the same number from saved state.
import { join } from 'node:path'
import { linkAppInstance, newDataDir, startApp } from './harness/app'
import { isEntry, metOrMissed, runMain, type Figure } from './harness/figure'
import { inPool } from './harness/pool'
import { sleep, spread } from './harness/stats'
import { formatSpread, markdownTable, verdict } from './harness/table'
import { RawProcess } from './raw/raw-client'

const ACCOUNTS = Number(process.env.BENCH_START_N ?? 100)
const LINKS_IN_FLIGHT = 5
const TIMEOUT_MS = 180_000

export const startFigure: Figure = async ({ sandbox, rounds, phone, target }) => {
  const link = (qr: string, phoneNumber: string) => sandbox.link(qr, phoneNumber)
  const dataDir = newDataDir()
  const savedRaw = join(dataDir, 'raw-auth.json')
  const first = await startApp(sandbox.controlUrl, dataDir)
  try {
    await inPool(ACCOUNTS, LINKS_IN_FLIGHT, () => linkAppInstance(first, link, phone()))
  } finally {
    await first.stop()
  }
  const linker = await RawProcess.start(sandbox.wsUrl, sandbox.rootKeyHex)
  try {
    await inPool(ACCOUNTS, LINKS_IN_FLIGHT, () => linker.link(link, phone()))
    await linker.call({ cmd: 'save', path: savedRaw })
  } finally {
    await linker.stop()
  }

  const seconds: Record<'app' | 'raw', number[]> = { app: [], raw: [] }
  const restartApp = async () => {
    const started = performance.now()
    const app = await startApp(sandbox.controlUrl, dataDir)
    try {
      const deadline = Date.now() + TIMEOUT_MS
      for (;;) {
        const { instances } = await app.call<{ instances: Array<{ state: string }> }>('instances')
        const connected = instances.filter((instance) => instance.state === 'connected').length
        if (connected >= ACCOUNTS) break
        if (Date.now() > deadline) throw new Error(`app: ${connected} of ${ACCOUNTS} connected after restart`)
        await sleep(50)
      }
      seconds.app.push((performance.now() - started) / 1000)
    } finally {
      await app.stop()
    }
  }
  const restartRaw = async () => {
    const started = performance.now()
    const raw = await RawProcess.start(sandbox.wsUrl, sandbox.rootKeyHex)
    try {
      await raw.call({ cmd: 'restore', path: savedRaw }, TIMEOUT_MS)
      seconds.raw.push((performance.now() - started) / 1000)
    } finally {
      await raw.stop()
    }
  }
  for (let round = 0; round < rounds; round++) {
    if (round % 2 === 0) await restartApp().then(restartRaw)
    else await restartRaw().then(restartApp)
  }
  const app = spread(seconds.app)
  target({
    figure: `${ACCOUNTS} linked accounts restored and connected`,
    app: `${app.median.toFixed(1)} s`,
    beside: `raw, all at once ${spread(seconds.raw).median.toFixed(1)} s`,
    target: `≤ 15 s: ${metOrMissed(app.median <= 15)}`,
  })
  return [
    `## Start: ${ACCOUNTS} linked accounts restored and connected after a restart (seconds from spawn), ${rounds} rounds`,
    '',
    markdownTable(
      ['side', 'seconds until all connected'],
      [
        ['app: `npm run serve` on the same data dir, polling `instances` every 50 ms', formatSpread(app, 2)],
        [
          'raw: a fresh process reconnecting all saved accounts at once',
          formatSpread(spread(seconds.raw), 2),
        ],
      ],
    ),
    '',
    `Target ≤ 15 s: ${verdict(app.median <= 15, `${app.median.toFixed(2)} s`)}. Both times include the process start (compiled JavaScript on both sides).`,
  ].join('\n')
}

if (isEntry(import.meta.url)) runMain('start', startFigure)
