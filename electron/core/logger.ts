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
    },
    destination ?? pino.destination({ fd: 2, sync: false }),
  )
}

/** A logger that drops everything: for tests and libraries that require one. */
export function silentLogger(): Logger {
  return pino({ level: 'silent' })
}
