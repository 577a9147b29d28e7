// The headless app exactly as `npm run serve` runs it, plus one bench-only hook that changes nothing in the
// product: on SIGUSR2 it runs a full GC (start it with --expose-gc) and prints `bench-memory: {json}`; with
// BENCH_HEAP_SNAPSHOT_DIR set it also writes a heap snapshot there (its path in the report), for diffing by kind.
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { getHeapSpaceStatistics, writeHeapSnapshot } from 'node:v8'

const collectGarbage = (globalThis as { gc?: () => void }).gc

process.on('SIGUSR2', () => {
  for (let i = 0; i < 4; i++) collectGarbage?.()
  const { rss, heapUsed, heapTotal, external, arrayBuffers } = process.memoryUsage()
  // Read before the snapshot, which allocates outside the heap while it is written.
  const rssKb = (field: string) => Number(new RegExp(`${field}:\\s+(\\d+) kB`).exec(status)?.[1] ?? NaN)
  const status = readFileSync('/proc/self/status', 'utf8')
  const split = { rssAnonKb: rssKb('RssAnon'), rssFileKb: rssKb('RssFile') }
  // Each heap space's committed size: what the heap holds in the resident set beside what it uses.
  const spaces = Object.fromEntries(
    getHeapSpaceStatistics().map((s) => [s.space_name, s.physical_space_size]),
  )
  const dir = process.env.BENCH_HEAP_SNAPSHOT_DIR
  const snapshot = dir
    ? writeHeapSnapshot(join(dir, `app-${process.pid}-${Date.now()}.heapsnapshot`))
    : undefined
  const report = {
    rss,
    ...split,
    heapUsed,
    heapTotal,
    external,
    arrayBuffers,
    spaces,
    gc: Boolean(collectGarbage),
    snapshot,
  }
  process.stdout.write(`bench-memory: ${JSON.stringify(report)}\n`)
})

await import('../../electron/headless/serve')

export {}
