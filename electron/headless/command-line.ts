import { type ParseArgsConfig, parseArgs } from 'node:util'
import { closest } from 'fastest-levenshtein'
import { ConfigError } from '../core/config'
import { unhandledCase } from '../core'

interface OptionBase {
  /** The long name, given as `--name`. */
  name: string
  short?: string
  /** The environment variable read when the option is not given. */
  env?: string
  /** The default, as the help shows it. */
  default: string
  description: string
}

/** An option without a value (`--sandbox`); its variable takes true/false or 1/0. */
export interface FlagOption<T> extends OptionBase {
  kind: 'flag'
  apply(target: T, value: boolean): void
}

/** An option with a value (`--port N`); `placeholder` names the value in the help. */
export interface ValueOption<T> extends OptionBase {
  kind: 'value'
  placeholder: string
  apply(target: T, value: string): void
}

export type CliOption<T> = FlagOption<T> | ValueOption<T>

/**
 * A command's options, as one table: parsing, the environment fallback and the help are all made from it,
 * so an option is added with one entry and the help cannot drift from what is accepted.
 */
export interface CommandSpec<T> {
  /** `npm run <script>`, shown in the usage line. */
  script: string
  /** The program's name in messages and in `--version`. */
  program: string
  summary: string
  options: readonly CliOption<T>[]
  /** Lines about the environment beyond the options' own variables. */
  environment?: readonly string[]
  /** The target before any option applies. */
  initial(env: NodeJS.ProcessEnv): T
}

/** What the command line asks for: print something and exit 0, or run with these settings. */
export type Invocation<T> = { kind: 'print'; text: string } | { kind: 'run'; settings: T }

const HELP = { name: 'help', short: 'h', description: 'print this help and exit' }
const VERSION = { name: 'version', description: 'print the version and exit' }

/**
 * Reads `argv` against the spec; an option not given falls back to its environment variable. A mistake
 * throws a ConfigError that says what to type instead.
 */
export function readCommandLine<T>(
  spec: CommandSpec<T>,
  argv: readonly string[],
  env: NodeJS.ProcessEnv,
  version: string,
): Invocation<T> {
  const parserOptions: NonNullable<ParseArgsConfig['options']> = {
    [HELP.name]: { type: 'boolean', short: HELP.short },
    [VERSION.name]: { type: 'boolean' },
  }
  for (const option of spec.options) {
    parserOptions[option.name] = {
      type: option.kind === 'flag' ? 'boolean' : 'string',
      ...(option.short ? { short: option.short } : {}),
    }
  }
  // A lenient pass first, so that --help wins over any mistake and an unknown option gets a suggestion.
  const { tokens } = parseArgs({
    args: [...argv],
    options: parserOptions,
    strict: false,
    allowPositionals: true,
    tokens: true,
  })
  const names = Object.keys(parserOptions)
  for (const token of tokens) {
    if (token.kind !== 'option') continue
    if (token.name === HELP.name) return { kind: 'print', text: helpText(spec) }
    if (token.name === VERSION.name) return { kind: 'print', text: `${spec.program} ${version}\n` }
  }
  for (const token of tokens) {
    if (token.kind === 'option' && !names.includes(token.name)) {
      throw new ConfigError(
        `unknown option ${token.rawName}: did you mean --${closest(token.name, names)}? (--help lists every option)`,
      )
    }
    if (token.kind === 'positional') {
      throw new ConfigError(`unexpected argument "${token.value}" (--help lists every option)`)
    }
  }
  let values: Record<string, string | boolean | (string | boolean)[] | undefined>
  try {
    values = parseArgs({ args: [...argv], options: parserOptions, strict: true }).values
  } catch (error) {
    throw new ConfigError((error as Error).message)
  }
  const settings = spec.initial(env)
  for (const option of spec.options) {
    const given = values[option.name]
    const fromEnv = option.env === undefined ? undefined : env[option.env]
    switch (option.kind) {
      case 'flag': {
        const value = typeof given === 'boolean' ? given : envFlag(option, fromEnv)
        if (value !== undefined) option.apply(settings, value)
        break
      }
      case 'value': {
        const value = typeof given === 'string' ? given : fromEnv || undefined
        if (value !== undefined) option.apply(settings, value)
        break
      }
      default:
        unhandledCase(option, 'option kind')
    }
  }
  return { kind: 'run', settings }
}

function envFlag<T>(option: FlagOption<T>, raw: string | undefined): boolean | undefined {
  if (raw === undefined || raw === '') return undefined
  if (raw === 'true' || raw === '1') return true
  if (raw === 'false' || raw === '0') return false
  throw new ConfigError(`${option.env} must be true, false, 1 or 0 (got ${JSON.stringify(raw)}).`)
}

/** The help: usage, then every option with its default and variable, then the environment notes. */
function helpText<T>(spec: CommandSpec<T>): string {
  const rows: Array<{ label: string; lines: string[] }> = spec.options.map((option) => ({
    label: [
      option.short ? `-${option.short}, ` : '    ',
      `--${option.name}`,
      option.kind === 'value' ? ` ${option.placeholder}` : '',
    ].join(''),
    lines: [
      option.description,
      `default: ${option.default}${option.env ? `; environment: ${option.env}` : ''}`,
    ],
  }))
  rows.push({ label: `-${HELP.short}, --${HELP.name}`, lines: [HELP.description] })
  rows.push({ label: `    --${VERSION.name}`, lines: [VERSION.description] })
  const width = Math.max(...rows.map((row) => row.label.length)) + 2
  const indent = ' '.repeat(width + 2)
  const body = rows.map(({ label, lines }) =>
    [`  ${label.padEnd(width)}${lines[0]}`, ...lines.slice(1).map((line) => indent + line)].join('\n'),
  )
  return [
    `Usage: npm run ${spec.script} -- [options]`,
    '',
    spec.summary,
    '',
    'Options:',
    ...body,
    ...(spec.environment?.length ? ['', 'Environment:', ...spec.environment.map((line) => `  ${line}`)] : []),
    '',
  ].join('\n')
}

/**
 * The settings of this process's command line; help and version are printed with exit code 0, a mistake
 * (or a ConfigError from `check`) with exit code 2.
 */
export function settingsOrExit<T, R = T>(
  spec: CommandSpec<T>,
  version: string,
  check: (settings: T) => R = (settings) => settings as unknown as R,
): R {
  try {
    const invocation = readCommandLine(spec, process.argv.slice(2), process.env, version)
    if (invocation.kind === 'print') {
      process.stdout.write(invocation.text)
      process.exit(0)
    }
    return check(invocation.settings)
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error
    process.stderr.write(`${spec.program}: ${error.message}\n`)
    process.exit(2)
  }
}
