// The headless app as `npm run serve` runs it, plus bench-only hooks that change nothing in the product:
// - on SIGUSR2 it runs a full GC (start it with --expose-gc) and prints `bench-memory: {json}`;
// - with BENCH_SEND_JITTER_MS set it builds the same core as serve.ts, with that send jitter: the CLI's
//   `--send-interval-ms 0` leaves the default 0–500 ms jitter on (see bench/results.md, Send).
import { fileURLToPath } from 'node:url'
import { createCore } from '../../electron/core'
import { parseConfig } from '../../electron/core/config'
import { serveOptions } from '../../electron/headless/cli-options'

const collectGarbage = (globalThis as { gc?: () => void }).gc

process.on('SIGUSR2', () => {
  for (let i = 0; i < 4; i++) collectGarbage?.()
  const { rss, heapUsed, heapTotal, external, arrayBuffers } = process.memoryUsage()
  const report = { rss, heapUsed, heapTotal, external, arrayBuffers, gc: Boolean(collectGarbage) }
  process.stdout.write(`bench-memory: ${JSON.stringify(report)}\n`)
})

const jitter = process.env.BENCH_SEND_JITTER_MS
if (jitter === undefined) {
  await import('../../electron/headless/serve')
} else {
  const options = serveOptions(process.argv.slice(2), process.env)
  const core = await createCore(
    parseConfig({
      ...options,
      limits: { ...options.limits, sendJitterMs: jitter },
      uiDir: fileURLToPath(new URL('../../renderer/dist', import.meta.url)),
    }),
  )
  process.stdout.write(`Linkdesk is running.\napi: ${core.apiBase}\nui-login: ${core.createLoginUrl()}\n`)
  const stop = () => void core.close().then(() => process.exit(0))
  process.once('SIGINT', stop)
  process.once('SIGTERM', stop)
}
