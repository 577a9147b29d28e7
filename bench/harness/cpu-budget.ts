import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'

interface ProfileNode {
  id: number
  callFrame: { functionName: string; url: string }
  children?: number[]
}

interface CpuProfile {
  nodes: ProfileNode[]
  startTime: number
  samples: number[]
  timeDeltas: number[]
}

/** Where main-thread CPU time goes, in the order the budget table lists it. */
export const CATEGORIES = [
  'Baileys, libsignal and their crypto',
  "stack capture (Baileys' per-query Error().stack, source-mapped under tsx)",
  'socket writes (write(2) syscalls: WebSocket frames, HTTP answers)',
  'WebSocket and Node streams',
  'HTTP server (Node http, Fastify)',
  'Linkdesk core (electron/core)',
  'LMDB and msgpackr (JS side)',
  'garbage collector',
  'other (Node internals, pino, timers)',
] as const

export type Category = (typeof CATEGORIES)[number]

/** A process's main-thread CPU time in a time window, by category, in ms; idle is left out. */
export interface CpuBudget {
  busyMs: number
  idleMs: number
  byCategory: Map<Category, number>
}

function categoryOfFrame(frame: ProfileNode['callFrame']): Category | undefined {
  const { url, functionName } = frame
  if (functionName === '(garbage collector)') return 'garbage collector'
  if (functionName === 'writeBuffer' || functionName === 'writev' || functionName === 'writeString') {
    return url === '' ? 'socket writes (write(2) syscalls: WebSocket frames, HTTP answers)' : undefined
  }
  if (url.includes('source_map') || functionName === 'get stack') {
    return "stack capture (Baileys' per-query Error().stack, source-mapped under tsx)"
  }
  const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url)?.[1]
  if (pkg) {
    if (
      /^(@whiskeysockets\/baileys|libsignal|curve25519-js|protobufjs|@hapi\/boom|async-mutex|lru-cache|@cacheable|node-cache|p-queue)/.test(
        pkg,
      )
    )
      return 'Baileys, libsignal and their crypto'
    if (/^(lmdb|msgpackr|ordered-binary)$/.test(pkg)) return 'LMDB and msgpackr (JS side)'
    if (
      /^(fastify|find-my-way|avvio|light-my-request|@fastify\/|fast-json-stringify|secure-json-parse)/.test(
        pkg,
      )
    )
      return 'HTTP server (Node http, Fastify)'
    if (pkg === 'ws') return 'WebSocket and Node streams'
    return 'other (Node internals, pino, timers)'
  }
  // The raw worker's own code counts with Baileys; the compiled server's chunks (out/headless) are the core.
  if (url.includes('/bench/raw/') || url.includes('/out/headless/raw-worker')) {
    return 'Baileys, libsignal and their crypto'
  }
  if (url.includes('/electron/core/') || url.includes('/out/headless/'))
    return 'Linkdesk core (electron/core)'

  if (/^node:(_http_|http$)/.test(url)) return 'HTTP server (Node http, Fastify)'
  if (/^node:(net|internal\/streams|internal\/stream_base_commons)/.test(url))
    return 'WebSocket and Node streams'
  return undefined
}

/**
 * The main-thread CPU of one process between two instants of CLOCK_MONOTONIC (µs, as `process.hrtime` gives
 * them; V8's profile timestamps use the same clock). Built-in and native frames count for the nearest caller
 * that has a category (so JSON.stringify called by the core counts as core), except syscalls and GC.
 */
export function cpuBudget(profile: CpuProfile, fromUs: number, toUs: number): CpuBudget {
  const byId = new Map(profile.nodes.map((node) => [node.id, node]))
  const parent = new Map<number, number>()
  for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id)
  const cache = new Map<number, Category | 'idle'>()
  const categoryOf = (id: number): Category | 'idle' => {
    const known = cache.get(id)
    if (known) return known
    const node = byId.get(id)
    let found: Category | 'idle' = 'other (Node internals, pino, timers)'
    if (node?.callFrame.functionName === '(idle)') found = 'idle'
    else if (node) {
      const own = categoryOfFrame(node.callFrame)
      const up = parent.get(id)
      found = own ?? (up !== undefined ? categoryOf(up) : found)
    }
    cache.set(id, found)
    return found
  }
  const byCategory = new Map<Category, number>()
  let time = profile.startTime
  let busyMs = 0
  let idleMs = 0
  for (let i = 0; i < profile.samples.length; i++) {
    const delta = profile.timeDeltas[i] ?? 0
    time += delta
    if (time < fromUs || time > toUs) continue
    const ms = delta / 1000
    const category = categoryOf(profile.samples[i] as number)
    if (category === 'idle') idleMs += ms
    else {
      busyMs += ms
      byCategory.set(category, (byCategory.get(category) ?? 0) + ms)
    }
  }
  return { busyMs, idleMs, byCategory }
}

/** The main-thread profile `--cpu-prof` wrote for `pid` in `dir` (its file name holds the pid; thread 0). */
export function readMainThreadProfile(dir: string, pid: number): CpuProfile {
  const file = readdirSync(dir).find((name) => name.includes(`.${pid}.0.`) && name.endsWith('.cpuprofile'))
  if (!file) throw new Error(`no CPU profile of process ${pid} in ${dir}`)
  return JSON.parse(readFileSync(join(dir, file), 'utf8')) as CpuProfile
}

/** CLOCK_MONOTONIC now, in µs (the clock of CPU profiles). */
export function monotonicUs(): number {
  return Number(process.hrtime.bigint() / 1000n)
}
