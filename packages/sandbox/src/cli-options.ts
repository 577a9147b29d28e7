import { parseArgs } from 'node:util'
import { closest } from 'fastest-levenshtein'

/** A mistake on the command line, said so that the person knows what to type instead. */
export class UsageError extends Error {
  override readonly name = 'UsageError'
}

export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const
export type LogLevel = (typeof LOG_LEVELS)[number]

export interface CliSettings {
  port: number
  logLevel: LogLevel
  /** Where the network's state is kept; none keeps it in memory. */
  dataDir: string | undefined
  reset: boolean
  /** The network's latency (MIN or MIN+JITTER milliseconds); none: the sandbox's default. */
  latency: { minMs: number; jitterMs: number } | undefined
}

/** What the command line asks for: print something and exit 0, or run with these settings. */
export type Invocation = { kind: 'print'; text: string } | { kind: 'run'; settings: CliSettings }

/** One option: its flag, the variable read when it is not given, its default as the help shows it. */
interface CliOption {
  name: string
  /** The value's name in the help; none for a flag. */
  placeholder?: string
  env: string
  default: string
  description: string
  apply(settings: CliSettings, value: string | boolean): void
}

const DEFAULT_PORT = 7000

/** `MIN` or `MIN+JITTER`, in milliseconds: `20+10`, `0`. */
function parseLatency(value: string): { minMs: number; jitterMs: number } {
  const match = /^(\d{1,5})(?:\+(\d{1,5}))?$/.exec(value.trim())
  if (!match)
    throw new UsageError('--latency must be MIN or MIN+JITTER in milliseconds (such as 20+10, or 0).')
  return { minMs: Number(match[1]), jitterMs: Number(match[2] ?? 0) }
}

/** `npm run sandbox`'s options, one entry each: parsing, the environment fallback and the help come from it. */
export const CLI_OPTIONS: readonly CliOption[] = [
  {
    name: 'port',
    placeholder: 'N',
    env: 'LINKDESK_SANDBOX_PORT',
    default: String(DEFAULT_PORT),
    description: 'port of the control API (0 picks a free one)',
    apply: (settings, value) => {
      const port = /^\d+$/.test(String(value)) ? Number(value) : NaN
      if (!(port <= 65_535)) throw new UsageError('--port must be a port number (0-65535).')
      settings.port = port
    },
  },
  {
    name: 'log-level',
    placeholder: 'L',
    env: 'LINKDESK_SANDBOX_LOG_LEVEL',
    default: 'info',
    description: `${LOG_LEVELS.join(', ')}; logs are JSON lines on stderr`,
    apply: (settings, value) => {
      const level = LOG_LEVELS.find((known) => known === value)
      if (!level) throw new UsageError(`--log-level must be one of ${LOG_LEVELS.join(', ')}.`)
      settings.logLevel = level
    },
  },
  {
    name: 'data-dir',
    placeholder: 'DIR',
    env: 'LINKDESK_SANDBOX_DATA_DIR',
    default: 'none (in memory)',
    description:
      'keep the network (accounts, devices, keys, groups, media, inboxes) in DIR/sandbox across restarts',
    apply: (settings, value) => {
      if (String(value).trim() === '') throw new UsageError('--data-dir must not be empty.')
      settings.dataDir = String(value)
    },
  },
  {
    name: 'latency',
    placeholder: 'MS',
    env: 'LINKDESK_SANDBOX_LATENCY',
    default: '20+10',
    description:
      'the least time a frame takes to a client, plus up to JITTER more (MIN or MIN+JITTER; 0: none)',
    apply: (settings, value) => {
      settings.latency = parseLatency(String(value))
    },
  },
  {
    name: 'reset',
    env: 'LINKDESK_SANDBOX_RESET',
    default: 'off',
    description: 'with --data-dir: delete the kept state at start, for a fresh network',
    apply: (settings, value) => {
      settings.reset = value === true
    },
  },
]

const HELP_SUMMARY = 'Runs the simulated WhatsApp network alone, with its control API, on loopback.'

/** The help: usage, then each option with its default and variable. */
function helpText(): string {
  const rows = [
    ...CLI_OPTIONS.map((option) => ({
      label: `    --${option.name}${option.placeholder ? ` ${option.placeholder}` : ''}`,
      lines: [option.description, `default: ${option.default}; environment: ${option.env}`],
    })),
    { label: '-h, --help', lines: ['print this help and exit'] },
    { label: '    --version', lines: ['print the version and exit'] },
  ]
  const width = Math.max(...rows.map((row) => row.label.length)) + 2
  const options = rows.flatMap(({ label, lines }) =>
    lines.map((line, index) => `  ${(index === 0 ? label : '').padEnd(width)}${line}`),
  )
  return ['Usage: npm run sandbox -- [options]', '', HELP_SUMMARY, '', 'Options:', ...options, ''].join('\n')
}

/** A flag's variable: true/false or 1/0. */
function envFlag(option: CliOption, raw: string): boolean {
  if (raw === 'true' || raw === '1') return true
  if (raw === 'false' || raw === '0') return false
  throw new UsageError(`${option.env} must be true, false, 1 or 0 (got ${JSON.stringify(raw)}).`)
}

/**
 * Reads `argv` against the options; one not given falls back to its environment variable. --help wins over
 * any mistake; a mistake throws a UsageError that names the nearest option.
 */
export function readCommandLine(
  argv: readonly string[],
  env: NodeJS.ProcessEnv,
  version: string,
): Invocation {
  const parserOptions = {
    help: { type: 'boolean', short: 'h' },
    version: { type: 'boolean' },
    ...Object.fromEntries(
      CLI_OPTIONS.map((option) => [option.name, { type: option.placeholder ? 'string' : 'boolean' }]),
    ),
  } as const satisfies NonNullable<Parameters<typeof parseArgs>[0]>['options']
  const names = Object.keys(parserOptions)
  const { tokens } = parseArgs({
    args: [...argv],
    options: parserOptions,
    strict: false,
    allowPositionals: true,
    tokens: true,
  })
  if (tokens.some((token) => token.kind === 'option' && token.name === 'help'))
    return { kind: 'print', text: helpText() }
  if (tokens.some((token) => token.kind === 'option' && token.name === 'version'))
    return { kind: 'print', text: `linkdesk sandbox ${version}\n` }
  for (const token of tokens) {
    if (token.kind === 'option' && !names.includes(token.name))
      throw new UsageError(
        `unknown option ${token.rawName}: did you mean --${closest(token.name, names)}? (--help lists every option)`,
      )
    if (token.kind === 'positional')
      throw new UsageError(`unexpected argument "${token.value}" (--help lists every option)`)
  }
  let values: Record<string, unknown>
  try {
    values = parseArgs({ args: [...argv], options: parserOptions, strict: true }).values
  } catch (error) {
    throw new UsageError((error as Error).message)
  }
  const settings: CliSettings = {
    port: DEFAULT_PORT,
    logLevel: 'info',
    dataDir: undefined,
    reset: false,
    latency: undefined,
  }
  for (const option of CLI_OPTIONS) {
    const given = values[option.name]
    const fromEnv = env[option.env] || undefined
    if (typeof given === 'string' || typeof given === 'boolean') option.apply(settings, given)
    else if (fromEnv !== undefined)
      option.apply(settings, option.placeholder ? fromEnv : envFlag(option, fromEnv))
  }
  if (settings.reset && settings.dataDir === undefined)
    throw new UsageError('--reset deletes the state kept in --data-dir: give --data-dir too.')
  return { kind: 'run', settings }
}
