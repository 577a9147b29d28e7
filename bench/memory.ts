// Memory: N linked idle accounts in the headless app (on LMDB, and as a cluster node on PostgreSQL) beside N
// raw sockets in one bare Baileys process; from the slopes, how many accounts one node holds.
import { linkAppInstance, newDataDir, startApp } from './harness/app'
import { isEntry, metOrMissed, runMain, type Figure } from './harness/figure'
import { inPool } from './harness/pool'
import { benchPostgres } from './harness/postgres'
import { rssMb, rssSplitMb } from './harness/proc'
import { linearFit, sleep, spread } from './harness/stats'
import { formatSpread, markdownTable, verdict } from './harness/table'
import { RawProcess } from './raw/raw-client'

const COUNTS = (process.env.BENCH_MEMORY_NS ?? '0,1,10,50,100').split(',').map(Number)
const SETTLE_MS = Number(process.env.BENCH_SETTLE_MS ?? 10_000)
/** Links in flight while setting up, as in the raw baseline. */
const LINKS_IN_FLIGHT = 5
const MB = 2 ** 20
/** The memory a node is sized with when the bench says how many accounts it holds. */
const NODE_BUDGET_MB = 4096

type Side = 'app' | 'app-pg' | 'raw'

interface Sample {
  n: number
  rss: number
  rssAnon: number
  rssFile: number
  heapUsed: number
  external: number
}

export const memoryFigure: Figure = async ({ sandbox, rounds, phone, target }) => {
  const link = (qr: string, phoneNumber: string) => sandbox.link(qr, phoneNumber)
  const samples: Record<Side, Sample[]> = { app: [], 'app-pg': [], raw: [] }
  const postgres = await benchPostgres()
  const measureApp = async (n: number, side: 'app' | 'app-pg' = 'app') => {
    const store = side === 'app-pg' ? await postgres?.server.createDatabase() : undefined
    const app = await startApp(sandbox.controlUrl, newDataDir(), store ? { store } : {})
    try {
      await inPool(n, LINKS_IN_FLIGHT, () => linkAppInstance(app, link, phone()))
      await sleep(SETTLE_MS)
      const memory = await app.memory()
      const split = rssSplitMb(app.process.pid)
      samples[side].push({
        n,
        rss: rssMb(app.process.pid),
        rssAnon: split.anon,
        rssFile: split.file,
        heapUsed: memory.heapUsed / MB,
        external: memory.external / MB,
      })
    } finally {
      await app.stop()
    }
  }
  const measureRaw = async (n: number) => {
    const raw = await RawProcess.start(sandbox.wsUrl, sandbox.rootKeyHex)
    try {
      await inPool(n, LINKS_IN_FLIGHT, () => raw.link(link, phone()))
      await sleep(SETTLE_MS)
      const memory = await raw.memory()
      const split = rssSplitMb(raw.pid)
      samples.raw.push({
        n,
        rss: rssMb(raw.pid),
        rssAnon: split.anon,
        rssFile: split.file,
        heapUsed: memory.heapUsed / MB,
        external: memory.external / MB,
      })
    } finally {
      await raw.stop()
    }
  }
  try {
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
  const sides: Side[] = postgres ? ['app', 'app-pg', 'raw'] : ['app', 'raw']

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
  ].join('\n')
}

if (isEntry(import.meta.url)) runMain('memory', memoryFigure)
