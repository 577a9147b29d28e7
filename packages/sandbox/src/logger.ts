/** One logging method, pino's shape: the object first, the message last. */
interface LogMethod {
  (object: object, message?: string): void
  (message: string): void
}

/**
 * The logger the sandbox writes to, typed by shape: a pino logger fits, and so does any logger with
 * pino's methods and child loggers.
 */
export interface Logger {
  fatal: LogMethod
  error: LogMethod
  warn: LogMethod
  info: LogMethod
  debug: LogMethod
  trace: LogMethod
  child(bindings: Record<string, unknown>): Logger
}
