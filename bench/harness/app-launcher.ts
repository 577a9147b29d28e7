// The headless app exactly as `npm run serve` runs it, plus one bench-only hook: on SIGUSR2 it runs a full
// GC and prints `bench-memory: {json}`. Start it with `node --expose-gc --import tsx bench/harness/app-launcher.ts
// <serve options>`; nothing in the product changes.
const collectGarbage = (globalThis as { gc?: () => void }).gc

process.on('SIGUSR2', () => {
  for (let i = 0; i < 4; i++) collectGarbage?.()
  const { rss, heapUsed, heapTotal, external, arrayBuffers } = process.memoryUsage()
  process.stdout.write(
    `bench-memory: ${JSON.stringify({ rss, heapUsed, heapTotal, external, arrayBuffers, gc: Boolean(collectGarbage) })}\n`,
  )
})

await import('../../electron/headless/serve')

export {}
