// Memory: N linked idle accounts in the headless app (on LMDB, and as a cluster node on PostgreSQL) beside N
// raw sockets in one bare Baileys process; from the slopes, how many accounts one node holds. Then the same
// accounts after a restart (what a desktop user runs: the app started again with its linked accounts idle),
// beside a fresh raw process reconnecting as many from saved keys.
import { join } from 'node:path'
import { linkAppInstance, newDataDir, startApp, type MemoryReport } from './harness/app'
import { isEntry, metOrMissed, runMain, type Figure, type TargetRow } from './harness/figure'
import { inPool } from './harness/pool'
import { benchPostgres } from './harness/postgres'
import { linearFit, sleep, spread } from './harness/stats'
import { formatSpread, markdownTable, verdict } from './harness/table'
import { RawProcess } from './raw/raw-client'
import type { RawMemory } from './raw/raw-protocol'

const counts = (list: string): number[] => list.split(',').filter(Boolean).map(Number)
const COUNTS = counts(process.env.BENCH_MEMORY_NS ?? '0,1,10,50,100')
/** Accounts linked, the process stopped, then started again and measured once all are connected. */
const RESTART_COUNTS = counts(process.env.BENCH_MEMORY_RESTART_NS ?? '1,10')
const RESTART_TIMEOUT_MS = 180_000
const SETTLE_MS = Number(process.env.BENCH_SETTLE_MS ?? 10_000)
/** Links in flight while setting up, as in the raw baseline. */
const LINKS_IN_FLIGHT = 5
const MB = 2 ** 20
/** The memory a node is sized with when the bench says how many accounts it holds. */
const NODE_BUDGET_MB = 4096

type Side = 'app' | 'app-pg' | 'raw'
type RestartedSide = 'app restarted' | 'raw restarted'

interface Sample {
  n: number
  rss: number
  rssAnon: number
  rssFile: number
  heapUsed: number
  /** The heap's committed pages (heapTotal) and, of them, the young generation's (new space). */
  heapTotal: number
  newSpace: number
  external: number
}

export const memoryFigure: Figure = async ({ sandbox, rounds, phone, target }) => {
  const link = (qr: string, phoneNumber: string) => sandbox.link(qr, phoneNumber)
  const samples: Record<Side, Sample[]> = { app: [], 'app-pg': [], raw: [] }
  const restartedSamples: Record<RestartedSide, Sample[]> = { 'app restarted': [], 'raw restarted': [] }
  // BENCH_MEMORY_PG=0 leaves the PostgreSQL node out (a shorter run of the other rows).
  const postgres =
    COUNTS.length > 0 && process.env.BENCH_MEMORY_PG !== '0' ? await benchPostgres() : undefined
  /** A sample from the process's own report, read after its GCs and before any heap snapshot. */
  const sample = (n: number, memory: MemoryReport | RawMemory): Sample => {
    return {
      n,
      rss: memory.rss / MB,
      rssAnon: memory.rssAnonKb / 1024,
      rssFile: memory.rssFileKb / 1024,
      heapUsed: memory.heapUsed / MB,
      heapTotal: memory.heapTotal / MB,
      newSpace: (memory.spaces.new_space ?? NaN) / MB,
      external: memory.external / MB,
    }
  }
  const measureApp = async (n: number, side: 'app' | 'app-pg' = 'app') => {
    const store = side === 'app-pg' ? await postgres?.server.createDatabase() : undefined
    const app = await startApp(sandbox.controlUrl, newDataDir(), store ? { store } : {})
    try {
      await inPool(n, LINKS_IN_FLIGHT, () => linkAppInstance(app, link, phone()))
      await sleep(SETTLE_MS)
      samples[side].push(sample(n, await app.memory()))
    } finally {
      await app.stop()
    }
  }
  const measureRaw = async (n: number) => {
    const raw = await RawProcess.start(sandbox.wsUrl, sandbox.rootKeyHex)
    try {
      await inPool(n, LINKS_IN_FLIGHT, () => raw.link(link, phone()))
      await sleep(SETTLE_MS)
      samples.raw.push(sample(n, await raw.memory()))
    } finally {
      await raw.stop()
    }
  }
  /** Links n accounts in the app and in a raw process, stops both; answers the app's data dir and raw's keys. */
  const linkThenStop = async (n: number) => {
    const dataDir = newDataDir()
    const first = await startApp(sandbox.controlUrl, dataDir)
    try {
      await inPool(n, LINKS_IN_FLIGHT, () => linkAppInstance(first, link, phone()))
    } finally {
      await first.stop()
    }
    const savedRaw = join(dataDir, 'raw-auth.json')
    const linker = await RawProcess.start(sandbox.wsUrl, sandbox.rootKeyHex)
    try {
      await inPool(n, LINKS_IN_FLIGHT, () => linker.link(link, phone()))
      await linker.call({ cmd: 'save', path: savedRaw })
    } finally {
      await linker.stop()
    }
    return { n, dataDir, savedRaw }
  }
  const measureRestartedApp = async ({ n, dataDir }: { n: number; dataDir: string }) => {
    const app = await startApp(sandbox.controlUrl, dataDir)
    try {
      const deadline = Date.now() + RESTART_TIMEOUT_MS
      for (;;) {
        const { instances } = await app.call<{ instances: Array<{ state: string }> }>('instances')
        const connected = instances.filter((instance) => instance.state === 'connected').length
        if (connected >= n) break
        if (Date.now() > deadline) throw new Error(`app: ${connected} of ${n} connected after restart`)
        await sleep(100)
      }
      await sleep(SETTLE_MS)
      restartedSamples['app restarted'].push(sample(n, await app.memory()))
    } finally {
      await app.stop()
    }
  }
  const measureRestartedRaw = async ({ n, savedRaw }: { n: number; savedRaw: string }) => {
    const raw = await RawProcess.start(sandbox.wsUrl, sandbox.rootKeyHex)
    try {
      await raw.call({ cmd: 'restore', path: savedRaw }, RESTART_TIMEOUT_MS)
      await sleep(SETTLE_MS)
      restartedSamples['raw restarted'].push(sample(n, await raw.memory()))
    } finally {
      await raw.stop()
    }
  }
  try {
    const linked = []
    for (const n of RESTART_COUNTS) linked.push(await linkThenStop(n))
    for (let round = 0; round < rounds; round++) {
      for (const accounts of linked) {
        if ((round + accounts.n) % 2 === 0)
          await measureRestartedApp(accounts).then(() => measureRestartedRaw(accounts))
        else await measureRestartedRaw(accounts).then(() => measureRestartedApp(accounts))
      }
    }
    for (let round = 0; round < rounds; round++) {
      for (const n of COUNTS) {
        if ((round + n) % 2 === 0) await measureApp(n).then(() => measureRaw(n))
        else await measureRaw(n).then(() => measureApp(n))
        if (postgres) await measureApp(n, 'app-pg')
      }
    }
  } finally {
    postgres?.server.stop()
  }
  const sides: Side[] = COUNTS.length === 0 ? [] : postgres ? ['app', 'app-pg', 'raw'] : ['app', 'raw']

  const rows: string[][] = []
  for (const n of COUNTS) {
    for (const side of sides) {
      const at = samples[side].filter((sample) => sample.n === n)
      rows.push([
        String(n),
        side,
        formatSpread(spread(at.map((s) => s.rss)), 1),
        formatSpread(spread(at.map((s) => s.rssAnon)), 1),
        formatSpread(spread(at.map((s) => s.rssFile)), 1),
        formatSpread(spread(at.map((s) => s.heapUsed)), 1),
        formatSpread(spread(at.map((s) => s.external)), 1),
      ])
    }
  }
  const fit = (side: Side, pick: (s: Sample) => number) =>
    linearFit(samples[side].map((sample) => ({ x: sample.n, y: pick(sample) })))
  const heapPlusExternal = (s: Sample) => s.heapUsed + s.external
  const fits = sides.map((side) => {
    const rss = fit(side, (s) => s.rss)
    const anon = fit(side, (s) => s.rssAnon)
    const file = fit(side, (s) => s.rssFile)
    const heap = fit(side, heapPlusExternal)
    return { side, rss, anon, file, heap }
  })
  const appFit = fits.find(({ side }) => side === 'app')
  const rawFit = fits.find(({ side }) => side === 'raw')
  const ratio = appFit && rawFit ? appFit.heap.slope / rawFit.heap.slope : NaN
  const rssRatio = appFit && rawFit ? appFit.rss.slope / rawFit.rss.slope : NaN
  const base = (side: Side) => spread(samples[side].filter((s) => s.n === 0).map((s) => s.rss)).median
  const restarted = restartedSection(restartedSamples, rounds, target)
  if (COUNTS.length === 0) return restarted
  if (appFit && rawFit) {
    target({
      figure: 'memory per linked idle account (heap + external; RSS)',
      app: `${appFit.heap.slope.toFixed(2)} MB; ${appFit.rss.slope.toFixed(2)} MB (R² ${appFit.rss.r2.toFixed(2)})`,
      beside: `raw ${rawFit.heap.slope.toFixed(2)} MB; ${rawFit.rss.slope.toFixed(2)} MB`,
      target:
        `≤ raw: heap ${metOrMissed(ratio <= 1)} (${ratio.toFixed(2)}×); RSS ${metOrMissed(rssRatio <= 1)} ` +
        `(${rssRatio.toFixed(2)}×)`,
    })
  }
  if (COUNTS.includes(0))
    target({
      figure: 'fixed overhead (RSS with no account)',
      app: `${base('app').toFixed(0)} MB`,
      beside: `raw ${base('raw').toFixed(0)} MB`,
      target: 'stated',
    })
  return [
    `## Memory: N linked idle accounts, ${SETTLE_MS / 1000} s settle then 4 forced GCs (MB), ${rounds} rounds`,
    '',
    markdownTable(['N', 'side', 'RSS', 'of which anon', 'of which file', 'heapUsed', 'external'], rows),
    '',
    markdownTable(
      [
        'side',
        'heapUsed+external MB/account (R²)',
        'RSS MB/account (R²)',
        'anon RSS MB/account',
        'file RSS MB/account',
        'intercept RSS MB',
        `accounts per node in ${NODE_BUDGET_MB / 1024} GiB`,
      ],
      fits.map(({ side, rss, anon, file, heap }) => [
        side,
        `**${heap.slope.toFixed(3)}** (${heap.r2.toFixed(3)})`,
        `**${rss.slope.toFixed(3)}** (${rss.r2.toFixed(3)})`,
        anon.slope.toFixed(3),
        file.slope.toFixed(3),
        rss.intercept.toFixed(1),
        String(Math.floor((NODE_BUDGET_MB - rss.intercept) / Math.max(rss.slope, 0.001))),
      ]),
    ),
    '',
    `Target ≤ 1.0× raw per account: heapUsed+external ${verdict(ratio <= 1, `${ratio.toFixed(2)}× raw`)}; ` +
      `RSS ${verdict(rssRatio <= 1, `${rssRatio.toFixed(2)}× raw`)}. ` +
      `Fixed overhead of the app over a bare Baileys process (RSS at N=0): ${(base('app') - base('raw')).toFixed(1)} MB ` +
      `(${base('app').toFixed(1)} vs ${base('raw').toFixed(1)} MB).`,
    'Both processes run compiled JavaScript with --expose-gc; RSS from /proc/<pid>/status after the GCs. Accounts are linked ' +
      `${LINKS_IN_FLIGHT} at a time in the measured process, as in the raw baseline (its keys in memory; the app's in LMDB,` +
      ' or for app-pg in PostgreSQL as one node of a cluster, its lease held; the server is not counted).' +
      ` Accounts per node: (${NODE_BUDGET_MB} MB − intercept) / RSS slope, idle accounts; traffic adds what the send and receive figures cost.`,
    ...(restarted ? ['', restarted] : []),
  ].join('\n')
}

/** The restarted variant: N accounts linked, the process started again, measured once all are connected. */
function restartedSection(
  samples: Record<RestartedSide, Sample[]>,
  rounds: number,
  target: (row: TargetRow) => void,
): string {
  if (RESTART_COUNTS.length === 0) return ''
  const sides: RestartedSide[] = ['app restarted', 'raw restarted']
  const at = (side: RestartedSide, n: number) => samples[side].filter((sample) => sample.n === n)
  const med = (values: Sample[], pick: (s: Sample) => number) => spread(values.map(pick)).median
  const rows = RESTART_COUNTS.flatMap((n) =>
    sides.map((side) => [
      String(n),
      side,
      ...(['rss', 'rssAnon', 'rssFile', 'heapUsed', 'heapTotal', 'newSpace', 'external'] as const).map(
        (field) => formatSpread(spread(at(side, n).map((s) => s[field])), 1),
      ),
    ]),
  )
  const low = Math.min(...RESTART_COUNTS)
  const high = Math.max(...RESTART_COUNTS)
  /** MB per account from the fewest to the most accounts, medians of the rounds. */
  const slope = (side: RestartedSide, pick: (s: Sample) => number) =>
    (med(at(side, high), pick) - med(at(side, low), pick)) / (high - low)
  const heap = (s: Sample) => s.heapUsed + s.external
  const slopes = sides.map((side) => ({
    side,
    rss: slope(side, (s) => s.rss),
    anon: slope(side, (s) => s.rssAnon),
    file: slope(side, (s) => s.rssFile),
    heap: slope(side, heap),
  }))
  const [app, raw] = slopes as [(typeof slopes)[0], (typeof slopes)[0]]
  const rssRatio = app.rss / raw.rss
  target({
    figure: `memory per idle account after a restart, ${low} → ${high} accounts (RSS; heap + external)`,
    app: `${app.rss.toFixed(2)} MB; ${app.heap.toFixed(2)} MB (${med(at('app restarted', high), (s) => s.rss).toFixed(0)} MB at ${high})`,
    beside: `raw ${raw.rss.toFixed(2)} MB; ${raw.heap.toFixed(2)} MB (${med(at('raw restarted', high), (s) => s.rss).toFixed(0)} MB at ${high})`,
    target: `≤ raw: RSS ${metOrMissed(rssRatio <= 1)} (${rssRatio.toFixed(2)}×)`,
  })
  return [
    `## Memory after a restart: N linked idle accounts reconnected, ${SETTLE_MS / 1000} s settle then 4 forced GCs (MB), ${rounds} rounds`,
    '',
    markdownTable(
      [
        'N',
        'side',
        'RSS',
        'of which anon',
        'of which file',
        'heapUsed',
        'heapTotal',
        'of which new space',
        'external',
      ],
      rows,
    ),
    '',
    markdownTable(
      ['side', `RSS MB/account ${low} → ${high}`, 'anon', 'file', 'heapUsed+external'],
      slopes.map(({ side, rss, anon, file, heap: h }) => [
        side,
        `**${rss.toFixed(2)}**`,
        anon.toFixed(2),
        file.toFixed(2),
        h.toFixed(2),
      ]),
    ),
    '',
    `Target ≤ 1.0× raw per account: RSS ${verdict(rssRatio <= 1, `${rssRatio.toFixed(2)}× raw`)}. ` +
      'The accounts are linked first and the process stopped; the app is then started again on the same data dir ' +
      '(`npm run serve`, its keys in LMDB) and measured once `instances` shows all connected; raw is a fresh Baileys ' +
      'process reconnecting the same number of accounts from keys it saved (in memory, as it keeps them). The ' +
      'slope is the difference of the medians divided by the accounts added.',
  ].join('\n')
}

if (isEntry(import.meta.url)) runMain('memory', memoryFigure)
