import {
  ConfigError,
  type ConfigInput,
  DEFAULT_DELIVERY_THREADS,
  DEFAULT_FFMPEG,
  DEFAULT_HOST,
  DEFAULT_LIMITS,
  DEFAULT_LOG_LEVEL,
  DEFAULT_PORT,
  DEFAULT_TIMINGS,
  LOG_LEVELS,
  defaultDataDir,
} from '../core/config'
import type { CommandSpec, ValueOption } from './command-line'

const LOG_LEVEL_HELP = `${LOG_LEVELS.join(', ')}; logs are JSON lines on stderr`

function limitsOf(input: ConfigInput): NonNullable<ConfigInput['limits']> {
  input.limits ??= {}
  return input.limits
}

/** `npm run serve`: one entry per option. */
export const SERVE_COMMAND: CommandSpec<ConfigInput> = {
  script: 'serve',
  program: 'linkdesk',
  summary: 'Runs the Linkdesk core without a window: the API, webhooks, and the UI for a browser.',
  options: [
    {
      kind: 'value',
      name: 'port',
      placeholder: 'N',
      env: 'LINKDESK_PORT',
      default: String(DEFAULT_PORT),
      description: 'port of the API and the UI (0 picks a free one)',
      apply: (input, value) => {
        input.port = value
      },
    },
    {
      kind: 'value',
      name: 'host',
      placeholder: 'H',
      env: 'LINKDESK_HOST',
      default: DEFAULT_HOST,
      description: 'address to bind; only loopback names and this host are accepted in Host headers',
      apply: (input, value) => {
        input.host = value
      },
    },
    {
      kind: 'value',
      name: 'data-dir',
      placeholder: 'DIR',
      env: 'LINKDESK_DATA_DIR',
      default: defaultDataDir(),
      description: 'settings, tokens, account credentials, message and event logs',
      apply: (input, value) => {
        input.dataDir = value
      },
    },
    {
      kind: 'flag',
      name: 'sandbox',
      env: 'LINKDESK_SANDBOX',
      default: 'off',
      description:
        'run the simulated network in-process and point every instance at it; its state is kept in <data dir>/sandbox',
      apply: (input, value) => {
        input.sandbox = value
      },
    },
    {
      kind: 'flag',
      name: 'sandbox-reset',
      env: 'LINKDESK_SANDBOX_RESET',
      default: 'off',
      description: "with --sandbox: delete the sandbox's kept state at start, for a fresh network",
      apply: (input, value) => {
        input.sandboxReset = value
      },
    },
    {
      kind: 'value',
      name: 'sandbox-url',
      placeholder: 'URL',
      env: 'LINKDESK_SANDBOX_URL',
      default: 'none',
      description: 'use an outside sandbox started with `npm run sandbox` (its control: URL)',
      apply: (input, value) => {
        input.sandboxUrl = value
      },
    },
    {
      kind: 'value',
      name: 'send-interval-ms',
      placeholder: 'N',
      env: 'LINKDESK_SEND_INTERVAL_MS',
      default: String(DEFAULT_LIMITS.sendIntervalMs),
      description: 'minimum time between two sends of one instance (0 turns pacing off)',
      apply: (input, value) => (limitsOf(input).sendIntervalMs = value),
    },
    {
      kind: 'value',
      name: 'requests-per-minute',
      placeholder: 'N',
      env: 'LINKDESK_REQUESTS_PER_MINUTE',
      default: String(DEFAULT_LIMITS.requestsPerMinute),
      description: "API requests a minute per access token; the window's own credential is not limited",
      apply: (input, value) => (limitsOf(input).requestsPerMinute = value),
    },
    {
      kind: 'value',
      name: 'connect-wait-ms',
      placeholder: 'N',
      env: 'LINKDESK_CONNECT_WAIT_MS',
      default: String(DEFAULT_TIMINGS.connectionWaitMs),
      description:
        'how long a send (or a media download) waits for an instance on its way to connected (0 answers at once)',
      apply: (input, value) => {
        input.timings = { ...input.timings, connectionWaitMs: value }
      },
    },
    {
      kind: 'value',
      name: 'wa-version-url',
      placeholder: 'URL',
      env: 'LINKDESK_WA_VERSION_URL',
      default: "the network's own",
      description:
        'where the current WhatsApp Web version is read at start and after a 405 (WhatsApp: sw.js on web.whatsapp.com; a sandbox: its /sw.js); empty keeps the bundled version',
      apply: (input, value) => {
        input.waVersionUrl = value
      },
    },
    {
      kind: 'flag',
      name: 'fsync',
      env: 'LINKDESK_FSYNC',
      default: 'off',
      description:
        "fsync each event before it counts as recorded: events survive power loss too, not only a killed process (about 1.5 ms per event, against 0.15 ms without, on the project's machine)",
      apply: (input, value) => {
        input.fsync = value
      },
    },
    {
      kind: 'value',
      name: 'delivery-threads',
      placeholder: 'N',
      env: 'LINKDESK_DELIVERY_THREADS',
      default: String(DEFAULT_DELIVERY_THREADS),
      description:
        'worker threads that sign and send webhook POSTs, off the main thread that runs the accounts and the API (0: on the main thread)',
      apply: (input, value) => {
        input.deliveryThreads = value
      },
    },
    {
      kind: 'value',
      name: 'store',
      placeholder: 'URL',
      env: 'LINKDESK_STORE',
      default: 'lmdb',
      description:
        'where the data is kept: lmdb (embedded, in the data folder) or a postgres://user:password@host:port/database URL (several nodes can share it; see docs/operations.md)',
      apply: (input, value) => {
        input.store = value
      },
    },
    {
      kind: 'value',
      name: 'node-id',
      placeholder: 'ID',
      env: 'LINKDESK_NODE_ID',
      default: 'host name and data folder',
      description:
        'this node in a cluster sharing a PostgreSQL store (docs/scaling.md); a restarted node keeps its id and takes its instances back at once',
      apply: (input, value) => {
        input.nodeId = value
      },
    },
    {
      kind: 'value',
      name: 'advertise-url',
      placeholder: 'URL',
      env: 'LINKDESK_ADVERTISE_URL',
      default: 'the listening address',
      description:
        'where the other nodes of the cluster reach this one (they forward requests for its instances)',
      apply: (input, value) => {
        input.advertiseUrl = value
      },
    },
    {
      kind: 'value',
      name: 'lease-ttl-ms',
      placeholder: 'N',
      env: 'LINKDESK_LEASE_TTL_MS',
      default: '10000',
      description:
        "how long a node's lease lasts unless renewed (every third of it): a dead node's instances move after about this long",
      apply: (input, value) => {
        input.leaseTtlMs = value
      },
    },
    {
      kind: 'value',
      name: 'ffmpeg',
      placeholder: 'PATH',
      env: 'LINKDESK_FFMPEG',
      default: DEFAULT_FFMPEG,
      description:
        'the ffmpeg that converts audio for voice notes, a path or a name on PATH; without one only Ogg/Opus is sent',
      apply: (input, value) => {
        input.ffmpeg = value
      },
    },
    {
      kind: 'flag',
      name: 'link-preview-private',
      env: 'LINKDESK_LINK_PREVIEW_PRIVATE',
      default: 'off',
      description:
        'let link previews fetch pages on private and loopback addresses too (off: public addresses only, as the link comes from a message text)',
      apply: (input, value) => {
        input.linkPreviewPrivate = value
      },
    },
    {
      kind: 'value',
      name: 'log-level',
      placeholder: 'L',
      env: 'LINKDESK_LOG_LEVEL',
      default: DEFAULT_LOG_LEVEL,
      description: LOG_LEVEL_HELP,
      apply: (input, value) => {
        input.logLevel = value
      },
    },
  ],
  environment: [
    'LINKDESK_ACCESS_TOKEN  registers this API access token at start (8-256 visible ASCII characters);',
    '                       doing it again changes nothing, so scripts and CI need no UI',
  ],
  initial: (env) => ({ accessToken: env.LINKDESK_ACCESS_TOKEN || undefined }),
}

interface CopyStoreSettings {
  dataDir: string
  to: string | undefined
}

/** A value option naming a folder, refused when empty; without a default it is required. */
function folderOption<K extends string>(
  name: string,
  key: K,
  spec: { env?: string; default?: string; description: string },
): ValueOption<{ [key in K]: string | undefined }> {
  return {
    kind: 'value',
    name,
    placeholder: 'DIR',
    ...(spec.env ? { env: spec.env } : {}),
    default: spec.default ?? 'none: required',
    description: spec.description,
    apply: (settings, value) => {
      if (value.trim() === '') throw new ConfigError(`--${name} must not be empty.`)
      settings[key] = value
    },
  }
}

/** `npm run copy-store`: copies a data folder's embedded store into PostgreSQL. */
export const COPY_STORE_COMMAND: CommandSpec<CopyStoreSettings> = {
  script: 'copy-store',
  program: 'linkdesk copy-store',
  summary:
    'Copies a data folder’s embedded store into an empty PostgreSQL database, once, so that `serve --store` on it finds every account linked. Stop the app on that folder first.',
  options: [
    folderOption('data-dir', 'dataDir', {
      env: 'LINKDESK_DATA_DIR',
      default: defaultDataDir(),
      description: 'the data folder to copy (it is only read)',
    }),
    {
      kind: 'value',
      name: 'to',
      placeholder: 'URL',
      env: 'LINKDESK_STORE',
      default: 'none: required',
      description: 'the postgres://user:password@host:port/database to copy into (created tables, no data)',
      apply: (settings, value) => {
        if (!/^postgres(ql)?:\/\//.test(value))
          throw new ConfigError('--to must be a postgres://user:password@host:port/database URL.')
        settings.to = value
      },
    },
  ],
  initial: () => ({ dataDir: defaultDataDir(), to: undefined }),
}

interface BackupSettings {
  dataDir: string
  to: string | undefined
}

/** `npm run backup`: a consistent copy of a data folder, made while its server runs. */
export const BACKUP_COMMAND: CommandSpec<BackupSettings> = {
  script: 'backup',
  program: 'linkdesk backup',
  summary:
    'Copies a data folder (settings, credentials, events, messages, media) into a new folder with a manifest of checksums, consistently even while a server runs on it. A node on PostgreSQL keeps its data in the database: use pg_dump.',
  options: [
    folderOption('data-dir', 'dataDir', {
      env: 'LINKDESK_DATA_DIR',
      default: defaultDataDir(),
      description: 'the data folder to back up (it is only read)',
    }),
    folderOption('to', 'to', { description: 'the folder to write the backup into (new or empty)' }),
  ],
  initial: () => ({ dataDir: defaultDataDir(), to: undefined }),
}

interface RestoreSettings {
  from: string | undefined
  dataDir: string | undefined
}

/** `npm run restore`: a backup checked against its manifest, then put into a new data folder. */
export const RESTORE_COMMAND: CommandSpec<RestoreSettings> = {
  script: 'restore',
  program: 'linkdesk restore',
  summary:
    'Checks a backup against its manifest, then restores it into a new or empty data folder (never one a server runs on); a damaged backup is refused and nothing is written.',
  options: [
    folderOption('from', 'from', { description: 'the backup folder (made by npm run backup)' }),
    folderOption('data-dir', 'dataDir', {
      description: 'the data folder to restore into (new or empty); then start serve with it',
    }),
  ],
  initial: () => ({ from: undefined, dataDir: undefined }),
}
