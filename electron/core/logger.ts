import { readdirSync } from 'node:fs'
import { join } from 'node:path'
import pino, { type Logger } from 'pino'
import roll from 'pino-roll'

export type { Logger }

export type LogLevel = 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent'

/** Creates the core's one root logger; modules take child loggers from it (`log.child({ module })`). */
export function createLogger(level: LogLevel = 'info', destination?: pino.DestinationStream): Logger {
  return pino(
    {
      level,
      base: undefined,
      redact: {
        paths: ['access_token', 'token', 'secret', 'authorization', '*.access_token', '*.token', '*.secret'],
        censor: '[redacted]',
      },
      hooks: { streamWrite: oneKeyPerField },
    },
    destination ?? pino.destination({ fd: 2, sync: false }),
  )
}

/**
 * pino writes a child's bindings after its parent's and a call's fields after both, each as given, so a
 * child that names its own `module` (Baileys' under an instance's) or a call that repeats `instanceId`
 * would put the key in the line twice, which log tools read differently. Each line keeps one key per field:
 * the innermost value, at the key's first place.
 */
function oneKeyPerField(line: string): string {
  return `${JSON.stringify(JSON.parse(line))}\n`
}

/** A logger that drops everything: for tests and libraries that require one. */
export function silentLogger(): Logger {
  return pino({ level: 'silent' })
}

/** A log file that rolls over: `linkdesk.<n>.log` in its folder, the newest being written. */
export interface RotatingLogFile {
  stream: pino.DestinationStream
  /** The file written now (it changes when the log rolls over). */
  current(): string
  close(): void
}

/**
 * Opens the desktop app's log in `dir`: a new file once one passes `maxBytes`, the newest `keep` old ones
 * kept and older ones deleted. Written on the main thread (no worker transport), so it works as well in
 * Electron's bundled main process as in Node.
 */
export async function openRotatingLogFile(
  dir: string,
  { maxBytes = 10 * 1024 * 1024, keep = 5 }: { maxBytes?: number; keep?: number } = {},
): Promise<RotatingLogFile> {
  const stream = await roll({
    file: join(dir, 'linkdesk'),
    extension: '.log',
    size: `${Math.max(1, Math.round(maxBytes / 1024))}k`,
    limit: { count: keep },
    mkdir: true,
  })
  return { stream, current: () => newestLogFile(dir), close: () => stream.end() }
}

/** The highest-numbered `linkdesk.<n>.log` of `dir`: the one pino-roll writes. */
function newestLogFile(dir: string): string {
  const numbers = readdirSync(dir).flatMap((name) => {
    const match = /^linkdesk\.(\d+)\.log$/.exec(name)
    return match ? [Number(match[1])] : []
  })
  return join(dir, `linkdesk.${Math.max(1, ...numbers)}.log`)
}

/** Log lines to stderr, as the core writes them, and to `file` too. */
export function alsoToFile(file: RotatingLogFile): pino.DestinationStream {
  return pino.multistream([
    { level: 'trace', stream: pino.destination({ fd: 2, sync: false }) },
    { level: 'trace', stream: file.stream },
  ])
}
