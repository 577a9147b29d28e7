import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import jsQR from 'jsqr'
// @ts-expect-error pngjs ships no type declarations
import { PNG } from 'pngjs'
import { getText, postJson, postOk } from './http'
import { compileServer, startNode, type Started } from './processes'
import type { ReceiverProcess } from '../webhook-delivery'
import { sleep } from './stats'

export interface MemoryReport {
  rss: number
  heapUsed: number
  heapTotal: number
  external: number
  arrayBuffers: number
  /** Each V8 heap space's resident size in bytes, by space name. */
  spaces: Record<string, number>
  /** The resident set split as the process read it itself, before any heap snapshot (kB). */
  rssAnonKb: number
  rssFileKb: number
  /** Where the heap snapshot went, when BENCH_HEAP_SNAPSHOT_DIR is set. */
  snapshot?: string
}

/** The headless app in its own process, pointed at the outside sandbox, with pacing off. */
export interface AppProcess {
  process: Started
  apiBase: string
  dataDir: string
  /** The operator credential the calls use. */
  token: string
  /** Calls a v1 operation with the operator credential and fails unless it succeeds. */
  call<T = Record<string, unknown>>(name: string, params?: Record<string, unknown>): Promise<T>
  /** Calls a v1 operation and answers status and body, whatever they are. */
  raw(name: string, params?: Record<string, unknown>): Promise<{ status: number; body: unknown }>
  /** The sum of a metric's samples in GET /metrics (all its labels together). */
  metric(name: string): Promise<number>
  /** create_instance → generate_qrcode → the sandbox phone scans → connected; answers the instance id and times. */
  memory(): Promise<MemoryReport>
  stop(): Promise<void>
}

const dataDirs: string[] = []

/** A fresh data dir; BENCH_DATA_ROOT=/dev/shm puts it on tmpfs (fsync costs nothing there), for profiling. */
export function newDataDir(root = process.env.BENCH_DATA_ROOT ?? tmpdir()): string {
  const dir = mkdtempSync(join(root, 'linkdesk-bench-'))
  dataDirs.push(dir)
  return dir
}

/** A fresh data dir on tmpfs, for the diagnosis rows that take disk flushes out of the picture. */
export function tmpfsDataDir(): string {
  return newDataDir('/dev/shm')
}

/** Deletes every data dir made so far (once their apps have stopped). */
export function removeDataDirs(): void {
  for (const dir of dataDirs.splice(0)) rmSync(dir, { recursive: true, force: true })
}

/**
 * Starts `npm run serve -- --sandbox-url <control> --send-interval-ms 0` through the bench launcher, compiled
 * as `npm run serve` compiles the server (same entry, plus GC-and-report on SIGUSR2). Calls use the operator credential from the printed login URL: the per-token
 * limit of 600 requests a minute would otherwise cap every figure at 10 requests/s.
 */
export async function startApp(
  controlUrl: string,
  dataDir = newDataDir(),
  options: { profileDir?: string; store?: string } = {},
): Promise<AppProcess> {
  compileServer()
  const started = await startNode(
    'app',
    [
      'out/headless/bench-app.js',
      '--sandbox-url',
      controlUrl,
      '--send-interval-ms',
      '0',
      '--port',
      '0',
      '--data-dir',
      dataDir,
      '--log-level',
      process.env.BENCH_APP_LOG ?? 'warn',
      ...(options.store ? ['--store', options.store] : []),
    ],
    {
      waitFor: ['api', 'ui-login'],
      nodeArgs: ['--expose-gc', ...cpuProfileArgs(options.profileDir)],
      timeoutMs: 60_000,
      compiled: true,
    },
  )
  const apiBase = started.values.get('api') ?? ''
  const code = new URL(started.values.get('ui-login') ?? '').hash.replace(/^#login=/, '')
  const { ui_token: token } = await postOk<{ ui_token: string }>(`${apiBase}/admin/session`, { code })
  const raw = (name: string, params: Record<string, unknown> = {}) =>
    postJson(`${apiBase}/${name}`, { access_token: token, ...params })
  return {
    process: started,
    apiBase,
    dataDir,
    token,
    raw,
    call: <T>(name: string, params: Record<string, unknown> = {}) =>
      postOk<T>(`${apiBase}/${name}`, { access_token: token, ...params }),
    metric: async (name) => {
      const text = await getText(`${apiBase}/metrics`, { authorization: `Bearer ${token}` })
      let sum = 0
      for (const line of text.split('\n')) {
        const [series, value] = line.split(' ')
        if (series === name || series?.startsWith(`${name}{`)) sum += Number(value)
      }
      return sum
    },
    memory: () =>
      new Promise((resolve, reject) => {
        const waitMs = process.env.BENCH_HEAP_SNAPSHOT_DIR ? 300_000 : 30_000
        const timer = setTimeout(
          () => reject(new Error(`app: no memory report within ${waitMs / 1000} s`)),
          waitMs,
        )
        const off = started.onLine((line) => {
          if (!line.startsWith('bench-memory: ')) return
          clearTimeout(timer)
          off()
          resolve(JSON.parse(line.slice('bench-memory: '.length)) as MemoryReport)
        })
        started.child.kill('SIGUSR2')
      }),
    stop: () => started.stop(20_000),
  }
}

/** `--cpu-prof` into `dir`, or into bench/.runs/profiles when BENCH_PROFILE_APP is set. */
export function cpuProfileArgs(dir?: string): string[] {
  const into = dir ?? (process.env.BENCH_PROFILE_APP ? 'bench/.runs/profiles' : undefined)
  return into ? ['--cpu-prof', '--cpu-prof-dir', into] : []
}

/** The text a PNG data URI's QR code encodes. */
export function decodeQr(dataUri: string): string {
  const png = PNG.sync.read(Buffer.from(dataUri.replace(/^data:image\/png;base64,/, ''), 'base64'))
  const code = jsQR(new Uint8ClampedArray(png.data), png.width, png.height)
  if (!code) throw new Error('no QR code in the image')
  return code.data
}

/** Polls the instance until it is connected (every `everyMs`); answers when that was seen. */
export async function waitConnected(
  app: AppProcess,
  instanceId: string,
  timeoutMs = 60_000,
  everyMs = 2,
): Promise<number> {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    const { instance } = await app.call<{ instance: { state: string } }>('instance', {
      instance_id: instanceId,
    })
    if (instance.state === 'connected') return performance.now()
    if (Date.now() > deadline)
      throw new Error(`${instanceId} not connected within ${timeoutMs} ms: ${instance.state}`)
    await sleep(everyMs)
  }
}

/** Times of one link, in ms from create_instance. */
export interface LinkTimes {
  qrMs: number
  scanToOpenMs: number
  totalMs: number
}

/** Links one instance to the sandbox phone `phone`; answers its id and the timings. */
export async function linkAppInstance(
  app: AppProcess,
  link: (qr: string, phone: string) => Promise<void>,
  phone: string,
): Promise<{ instanceId: string; times: LinkTimes }> {
  const started = performance.now()
  const { instance_id: instanceId } = await app.call<{ instance_id: string }>('create_instance')
  const { base64 } = await app.call<{ base64: string }>('generate_qrcode', { instance_id: instanceId })
  const qrAt = performance.now()
  const qr = decodeQr(base64)
  const scanAt = performance.now()
  await link(qr, phone)
  const openAt = await waitConnected(app, instanceId)
  return {
    instanceId,
    times: {
      qrMs: qrAt - started,
      scanToOpenMs: openAt - scanAt,
      totalMs: openAt - started - (scanAt - qrAt),
    },
  }
}

/**
 * Waits until the app's webhook backlog is drained: no event emitted for `quietMs` and an empty outbox.
 * Answers the wall clock of the last POST the receiver got and how many it got since its last take.
 */
export async function webhooksDrained(
  app: AppProcess,
  receiver?: ReceiverProcess,
  quietMs = 300,
): Promise<{ lastAt: number; received: number }> {
  let lastAt = 0
  let received = 0
  let emitted = -1
  let quietSince = performance.now()
  for (;;) {
    await sleep(50)
    const [events, depth] = await Promise.all([
      app.metric('linkdesk_events_total'),
      app.metric('linkdesk_webhook_outbox_depth'),
    ])
    if (receiver) {
      const report = await receiver.take()
      received += report.count
      if (report.count > 0) lastAt = report.lastAt
    }
    if (events !== emitted) {
      emitted = events
      quietSince = performance.now()
    } else if (depth === 0 && performance.now() - quietSince >= quietMs) return { lastAt, received }
  }
}
