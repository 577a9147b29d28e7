import pino, { type Logger } from 'pino'

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
