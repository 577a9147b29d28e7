import type { Logger } from '../logger'

const LEVEL_ORDER = ['trace', 'debug', 'info', 'warn', 'error', 'fatal', 'silent']

/**
 * The logger handed to Baileys: a child of ours at `warn` (or quieter, if the app is), so Baileys never writes
 * to stdout on its own and never dumps stanzas. pino's Logger already has the shape Baileys' ILogger asks for.
 */
export function baileysLogger(logger: Logger, instanceId: string): Logger {
  const level = LEVEL_ORDER.indexOf(logger.level) > LEVEL_ORDER.indexOf('warn') ? logger.level : 'warn'
  return logger.child({ module: 'baileys', instanceId }, { level })
}
