// The headless app exactly as `npm run serve` runs it, plus one bench-only hook that changes nothing in the
// product: on SIGUSR2 it runs a full GC (start it with --expose-gc) and prints `bench-memory: {json}`.
const collectGarbage = (globalThis as { gc?: () => void }).gc

process.on('SIGUSR2', () => {
  for (let i = 0; i < 4; i++) collectGarbage?.()
  const { rss, heapUsed, heapTotal, external, arrayBuffers } = process.memoryUsage()
  const report = { rss, heapUsed, heapTotal, external, arrayBuffers, gc: Boolean(collectGarbage) }
  process.stdout.write(`bench-memory: ${JSON.stringify(report)}\n`)
})

await import('../../electron/headless/serve')

export {}
