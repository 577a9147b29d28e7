import type { ChatMutation } from '@whiskeysockets/baileys'
import type { Logger } from '../logger'

const LEVEL_ORDER = ['trace', 'debug', 'info', 'warn', 'error', 'fatal', 'silent']

/** The stream error code WhatsApp ends the first connection with after every scan: reconnect now. */
const RESTART_REQUIRED = '515'

/**
 * The logger handed to Baileys: a child of ours at `warn` (or quieter, if the app is), so Baileys never writes
 * to stdout on its own and never dumps stanzas. pino's Logger already has the shape Baileys' ILogger asks for.
 * Baileys logs every stream error at error level, the routine 515 restart after pairing too: that one is
 * logged at info, without the stanza, and the instance's close verdict follows it.
 */
export function baileysLogger(
  logger: Logger,
  instanceId: string,
  onUnprocessedMutation?: (mutation: ChatMutation) => void,
): Logger {
  const level = LEVEL_ORDER.indexOf(logger.level) > LEVEL_ORDER.indexOf('warn') ? logger.level : 'warn'
  const child = logger.child({ module: 'baileys', instanceId }, { level })
  if (onUnprocessedMutation) {
    const debug = child.debug.bind(child)
    // Baileys reads some app-state mutations (a cleared chat) without any event: it only logs them, at debug.
    child.debug = ((...args: Parameters<Logger['debug']>) => {
      const mutation = unprocessedMutation(args)
      if (mutation) onUnprocessedMutation(mutation)
      debug(...args)
    }) as Logger['debug']
  }
  const error = child.error.bind(child)
  child.error = ((...args: Parameters<Logger['error']>) => {
    if (isRestartRequired(args)) {
      logger.info(
        { module: 'baileys', instanceId, code: 515 },
        'stream restart required (routine after pairing)',
      )
      return
    }
    error(...args)
  }) as Logger['error']
  return child
}

/** Baileys' `logger.error({ reasonNode, fullErrorNode }, 'stream errored out')` for a 515. */
function isRestartRequired(args: unknown[]): boolean {
  const [object, message] = args
  if (message !== 'stream errored out' || typeof object !== 'object' || object === null) return false
  const node = (object as { fullErrorNode?: { attrs?: Record<string, unknown> } }).fullErrorNode
  return node?.attrs?.code === RESTART_REQUIRED
}

/** Baileys' `logger.debug({ syncAction, id }, 'unprocessable update')` for an app-state mutation it has no event for. */
function unprocessedMutation(args: unknown[]): ChatMutation | undefined {
  const [object, message] = args
  if (message !== 'unprocessable update' || typeof object !== 'object' || object === null) return undefined
  const mutation = (object as { syncAction?: Partial<ChatMutation> }).syncAction
  return Array.isArray(mutation?.index) && mutation.syncAction ? (mutation as ChatMutation) : undefined
}
