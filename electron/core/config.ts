import { homedir } from 'node:os'
import { isAbsolute, join, resolve } from 'node:path'
import {
  type EventSettings,
  EventSettingsError,
  type EventSettingsInput,
  parseEventSettings,
} from './contract/event-settings'
import type { LogLevel } from './logger'

/**
 * Where instances connect: WhatsApp itself, a sandbox inside this process (its state kept in the data
 * directory; `reset` starts it fresh), or an outside sandbox's control API.
 */

/** Where the core keeps its data: the embedded LMDB store in the data folder, or a PostgreSQL database. */
export type StoreChoice = { kind: 'lmdb' } | { kind: 'postgres'; url: string }

export type NetworkMode =
  { kind: 'whatsapp' } | { kind: 'sandbox'; reset: boolean } | { kind: 'sandbox-url'; controlUrl: string }

export interface Limits {
  /** Largest accepted request body, bytes. */
  bodyBytes: number
  /** Longest text message, characters. */
  textChars: number
  /** Largest media file fetched from media_url, bytes. */
  mediaBytes: number
  /** Time allowed to fetch media_url, milliseconds. */
  mediaFetchMs: number
  /** Requests per minute per access token. */
  requestsPerMinute: number
  /** Minimum interval between two sends of one instance, milliseconds; 0 turns pacing off. */
  sendIntervalMs: number
  /** Random extra delay added to the interval, up to this many milliseconds. */
  sendJitterMs: number
  /** Sends waiting per instance before rate_limited. */
  sendQueueMax: number
}

/** Connection timers of the instances; tests shorten them, users keep the defaults. */
export interface Timings {
  /** Ping interval; a link silent for this + 5 s is declared lost. */
  keepAliveIntervalMs: number
  /** Lifetime of each QR code; 0 keeps Baileys' default (60 s for the first, 20 s for the next ones). */
  qrTimeoutMs: number
  /** WebSocket handshake and per-frame send timeout. */
  connectTimeoutMs: number
  /** First reconnect delay after a lost connection; it doubles up to reconnectMaxMs, with jitter. */
  reconnectBaseMs: number
  reconnectMaxMs: number
  /** An open connection lasting this long resets the reconnect backoff. */
  stableOpenMs: number
  /** Gap between the restarts of linked instances when the core starts (100 accounts connect within ~10 s). */
  restoreStaggerMs: number
  /**
   * How long generate_qrcode and reconnect wait for a QR or a connection, and send_message for the network's
   * acknowledgement, before answering upstream_timeout.
   */
  operationWaitMs: number
  /**
   * How long an operation that needs the connection (a send, a media download) waits for an instance on its
   * way to `connected` (connecting, restoring, retrying soon) before answering not_connected.
   */
  connectionWaitMs: number
  /**
   * How long a send the network did not acknowledge (answered 504) is sent again, under its id, on each new
   * connection; one still unacknowledged then is marked failed (message.status, error_code `unacknowledged`).
   */
  resendWindowMs: number
  /** How long the client version document may take to fetch before the last known version is used. */
  versionFetchMs: number
  /**
   * On LMDB: how long a write nobody waits for (a journaled event, a delivery's outcome) waits to ride in the
   * transaction of another write before it commits alone.
   */
  deferredCommitMs: number
}
export interface Config {
  host: string
  port: number
  dataDir: string
  network: NetworkMode
  /** Token registered at start (LINKDESK_ACCESS_TOKEN), if any. */
  accessToken?: string
  logLevel: LogLevel
  limits: Limits
  timings: Timings
  /** Webhook delivery, event log retention and live stream settings. */
  events: EventSettings
  /**
   * Each journal append is fsync'd before it counts as recorded: events then survive power loss and OS
   * crashes too, not only a killed process, at the cost of one disk flush each.
   */
  fsync: boolean
  /**
   * Worker threads that build, sign and send webhook POSTs (each instance's queue always on the same one);
   * 0, the default, sends them from the main thread.
   */
  deliveryThreads: number
  /**
   * Where the data is kept: the embedded LMDB store in the data folder (the default, and the desktop's only
   * store), or a PostgreSQL database (`--store postgres://…`), which several headless nodes can share.
   */
  store: StoreChoice
  /** This node in a cluster of nodes sharing a PostgreSQL store (docs/scaling.md). */
  cluster: ClusterSettings
  /** Folder of the built renderer served at `/`; none serves no UI. */
  uiDir?: string
  /**
   * Where the current WhatsApp Web client version is read: unset is the network's own document (WhatsApp's
   * `sw.js`, or the sandbox's), empty never fetches and keeps the bundled version.
   */
  waVersionUrl?: string
  /** The ffmpeg program that converts audio to voice notes: a path, or a name looked up on PATH. */
  ffmpeg: string
  /**
   * Link previews may fetch from private and loopback addresses too. Off: public addresses only, since the
   * link comes from a message's text, which a bot may have taken from anyone.
   */
  linkPreviewPrivate: boolean
}

export const DEFAULT_PORT = 8686
export const DEFAULT_HOST = '127.0.0.1'
export const DEFAULT_LOG_LEVEL: LogLevel = 'info'

export const DEFAULT_LIMITS: Limits = {
  bodyBytes: 1024 * 1024,
  textChars: 65_536,
  mediaBytes: 64 * 1024 * 1024,
  mediaFetchMs: 30_000,
  requestsPerMinute: 600,
  sendIntervalMs: 1000,
  sendJitterMs: 500,
  sendQueueMax: 100,
}

export const DEFAULT_TIMINGS: Timings = {
  keepAliveIntervalMs: 30_000,
  qrTimeoutMs: 0,
  connectTimeoutMs: 20_000,
  reconnectBaseMs: 1000,
  reconnectMaxMs: 60_000,
  stableOpenMs: 60_000,
  restoreStaggerMs: 100,
  operationWaitMs: 45_000,
  connectionWaitMs: 15_000,
  resendWindowMs: 10 * 60_000,
  versionFetchMs: 5000,
  deferredCommitMs: 50,
}

export const LOG_LEVELS: readonly LogLevel[] = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']

/** A configuration that cannot be used; its message says which setting and why. */
export class ConfigError extends Error {
  constructor(message: string) {
    super(message)
    this.name = 'ConfigError'
  }
}

export interface ConfigInput {
  host?: string
  port?: number | string
  dataDir?: string
  sandbox?: boolean
  /** With `sandbox`: delete the in-process sandbox's kept state at start. */
  sandboxReset?: boolean
  sandboxUrl?: string
  accessToken?: string
  logLevel?: string
  limits?: Partial<Record<keyof Limits, number | string>>
  timings?: Partial<Record<keyof Timings, number | string>>
  events?: EventSettingsInput
  fsync?: boolean
  deliveryThreads?: number | string
  /** `lmdb`, or a `postgres://` (or `postgresql://`) URL. */
  store?: string
  nodeId?: string
  advertiseUrl?: string
  leaseTtlMs?: number | string
  uiDir?: string
  waVersionUrl?: string
  ffmpeg?: string
  linkPreviewPrivate?: boolean
}

export const DEFAULT_FFMPEG = 'ffmpeg'

/** A node of a cluster: its id, where peers reach it, and its lease. */
export interface ClusterSettings {
  /** Unset: derived from the host name and the data folder, so a restarted node is the same node. */
  nodeId?: string
  /** Unset: the address the API listens on. */
  advertiseUrl?: string
  leaseTtlMs: number
  /** The node stops acting this long before its lease could expire (a fifth of the TTL, at most 2 s). */
  leaseMarginMs: number
}

export const DEFAULT_LEASE_TTL_MS = 10_000

function parseCluster(input: ConfigInput, store: StoreChoice): ClusterSettings {
  const given = [input.nodeId, input.advertiseUrl, input.leaseTtlMs].some((value) => value !== undefined)
  if (given && store.kind !== 'postgres')
    throw new ConfigError(
      'node-id, advertise-url and lease-ttl-ms need a shared store: --store postgres://….',
    )
  const nodeId = input.nodeId?.trim()
  if (nodeId !== undefined && !/^[A-Za-z0-9._:-]{1,64}$/.test(nodeId))
    throw new ConfigError('node-id must be 1 to 64 letters, digits, dots, colons, dashes or underscores.')
  let advertiseUrl: string | undefined
  if (input.advertiseUrl !== undefined) {
    const url = URL.canParse(input.advertiseUrl) ? new URL(input.advertiseUrl) : undefined
    if (!url || !['http:', 'https:'].includes(url.protocol) || url.pathname !== '/')
      throw new ConfigError('advertise-url must be an http:// or https:// address without a path.')
    advertiseUrl = url.origin
  }
  const ttl = input.leaseTtlMs === undefined ? DEFAULT_LEASE_TTL_MS : Number(input.leaseTtlMs)
  if (!Number.isInteger(ttl) || ttl < 1_000 || ttl > 600_000)
    throw new ConfigError('lease-ttl-ms must be a whole number from 1000 to 600000.')
  return {
    ...(nodeId !== undefined && { nodeId }),
    ...(advertiseUrl !== undefined && { advertiseUrl }),
    leaseTtlMs: ttl,
    leaseMarginMs: Math.min(2_000, Math.floor(ttl / 5)),
  }
}

/** The OS's usual per-user folder for app data. */
export function defaultDataDir(env: NodeJS.ProcessEnv = process.env, platform = process.platform): string {
  if (platform === 'win32') return join(env.APPDATA ?? join(homedir(), 'AppData', 'Roaming'), 'Linkdesk')
  if (platform === 'darwin') return join(homedir(), 'Library', 'Application Support', 'Linkdesk')
  return join(env.XDG_CONFIG_HOME ?? join(homedir(), '.config'), 'Linkdesk')
}

function parsePort(value: number | string | undefined): number {
  if (value === undefined) return DEFAULT_PORT
  const port = typeof value === 'number' ? value : /^\d+$/.test(value) ? Number(value) : NaN
  if (!Number.isInteger(port) || port < 0 || port > 65_535) {
    throw new ConfigError(`port must be a whole number from 0 to 65535 (got ${JSON.stringify(value)}).`)
  }
  return port
}

export const DEFAULT_DELIVERY_THREADS = 0
const MAX_DELIVERY_THREADS = 8

function parseDeliveryThreads(value: number | string | undefined): number {
  if (value === undefined) return DEFAULT_DELIVERY_THREADS
  const threads = typeof value === 'number' ? value : /^\d+$/.test(value) ? Number(value) : NaN
  if (!Number.isInteger(threads) || threads < 0 || threads > MAX_DELIVERY_THREADS) {
    throw new ConfigError(
      `delivery-threads must be a whole number from 0 to ${MAX_DELIVERY_THREADS} (got ${JSON.stringify(value)}).`,
    )
  }
  return threads
}

function parseHost(value: string | undefined): string {
  const host = value ?? DEFAULT_HOST
  if (!/^[A-Za-z0-9.:\-[\]]+$/.test(host))
    throw new ConfigError(`host is not a valid host name or address: "${host}".`)
  return host
}

function parseNetwork(input: ConfigInput): NetworkMode {
  const { sandbox, sandboxUrl, sandboxReset } = input
  if (sandbox && sandboxUrl) throw new ConfigError('Use either --sandbox or --sandbox-url, not both.')
  if (sandboxReset && !sandbox) {
    throw new ConfigError('--sandbox-reset starts the in-process sandbox fresh: use it with --sandbox.')
  }
  if (sandboxUrl !== undefined) {
    let url: URL
    try {
      url = new URL(sandboxUrl)
    } catch {
      throw new ConfigError(
        `sandbox-url must be the sandbox's control URL, such as http://127.0.0.1:7000/sandbox.`,
      )
    }
    if (url.protocol !== 'http:') throw new ConfigError('sandbox-url must be an http:// URL on this machine.')
    return { kind: 'sandbox-url', controlUrl: url.toString().replace(/\/$/, '') }
  }
  return sandbox ? { kind: 'sandbox', reset: sandboxReset ?? false } : { kind: 'whatsapp' }
}

function parseLimits(input: ConfigInput['limits'] = {}): Limits {
  const limits = { ...DEFAULT_LIMITS }
  for (const [name, raw] of Object.entries(input)) {
    if (!(name in DEFAULT_LIMITS)) throw new ConfigError(`Unknown limit "${name}".`)
    const value = typeof raw === 'number' ? raw : /^\d+$/.test(String(raw)) ? Number(raw) : NaN
    if (!Number.isSafeInteger(value) || value < 0) {
      throw new ConfigError(`Limit ${name} must be a whole number of 0 or more (got ${JSON.stringify(raw)}).`)
    }
    limits[name as keyof Limits] = value
  }
  for (const name of [
    'bodyBytes',
    'textChars',
    'mediaBytes',
    'mediaFetchMs',
    'requestsPerMinute',
    'sendQueueMax',
  ] as const) {
    if (limits[name] === 0) throw new ConfigError(`Limit ${name} must be greater than 0.`)
  }
  return limits
}

function parseVersionUrl(value: string | undefined): string | undefined {
  if (value === undefined || value === '') return value
  let url: URL | undefined
  try {
    url = new URL(value)
  } catch {
    url = undefined
  }
  if (url?.protocol !== 'http:' && url?.protocol !== 'https:') {
    throw new ConfigError(`wa-version-url must be an http(s) URL, or empty to keep the bundled version.`)
  }
  return url.toString()
}

function parseTimings(input: ConfigInput['timings'] = {}): Timings {
  const timings = { ...DEFAULT_TIMINGS }
  for (const [name, raw] of Object.entries(input)) {
    if (raw === undefined) continue
    if (!(name in DEFAULT_TIMINGS)) throw new ConfigError(`Unknown timing "${name}".`)
    const value = typeof raw === 'number' ? raw : /^\d+$/.test(String(raw)) ? Number(raw) : NaN
    if (!Number.isSafeInteger(value) || value < 0) {
      throw new ConfigError(`${name} must be a whole number of 0 or more (got ${JSON.stringify(raw)}).`)
    }
    timings[name as keyof Timings] = value
  }
  return timings
}

function parseEvents(input: EventSettingsInput | undefined): EventSettings {
  try {
    return parseEventSettings(input)
  } catch (error) {
    if (error instanceof EventSettingsError) throw new ConfigError(error.message)
    throw error
  }
}

function parseStore(input: string | undefined): StoreChoice {
  const value = input?.trim() ?? ''
  if (value === '' || value === 'lmdb') return { kind: 'lmdb' }
  let url: URL | undefined
  try {
    url = new URL(value)
  } catch {
    url = undefined
  }
  if (url?.protocol !== 'postgres:' && url?.protocol !== 'postgresql:')
    throw new ConfigError('store must be lmdb or a postgres://user:password@host:port/database URL.')
  return { kind: 'postgres', url: value }
}

/** Validates everything once, at the entry; the rest of the core trusts the result. */
export function parseConfig(input: ConfigInput, env: NodeJS.ProcessEnv = process.env): Config {
  const logLevel = (input.logLevel ?? DEFAULT_LOG_LEVEL) as LogLevel
  if (!LOG_LEVELS.includes(logLevel)) {
    throw new ConfigError(`log level must be one of ${LOG_LEVELS.join(', ')} (got "${input.logLevel}").`)
  }
  const dataDir = input.dataDir ?? defaultDataDir(env)
  if (dataDir.trim() === '') throw new ConfigError('data-dir must not be empty.')
  const accessToken = input.accessToken
  if (accessToken !== undefined && !/^[\x21-\x7e]{8,256}$/.test(accessToken)) {
    throw new ConfigError('LINKDESK_ACCESS_TOKEN must be 8 to 256 visible ASCII characters without spaces.')
  }
  const store = parseStore(input.store)
  return {
    host: parseHost(input.host),
    port: parsePort(input.port),
    dataDir: isAbsolute(dataDir) ? dataDir : resolve(dataDir),
    network: parseNetwork(input),
    accessToken,
    logLevel,
    limits: parseLimits(input.limits),
    timings: parseTimings(input.timings),
    events: parseEvents(input.events),
    fsync: input.fsync ?? false,
    deliveryThreads: parseDeliveryThreads(input.deliveryThreads),
    store,
    cluster: parseCluster(input, store),
    uiDir: input.uiDir,
    waVersionUrl: parseVersionUrl(input.waVersionUrl),
    ffmpeg: input.ffmpeg?.trim() || DEFAULT_FFMPEG,
    linkPreviewPrivate: input.linkPreviewPrivate ?? false,
  }
}
