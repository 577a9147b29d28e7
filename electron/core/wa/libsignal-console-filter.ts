import type { Logger } from '../logger'

/** How libsignal's own console messages begin (libsignal/src/*.js); some are followed by a whole session object. */
const LIBSIGNAL_PREFIXES = [
  'Closing session',
  'Opening session',
  'Removing old closed session',
  'Session already closed',
  'Session already open',
  'Migrating session to',
  'V1 session storage migration error',
  'Closing open session in favor of incoming prekey bundle',
  'Closing stale open session',
  'Failed to decrypt message with any known session',
  'Session error:',
  'Decrypted message with closed session',
  'WARNING: Expected pubkey of length 33',
  'Unhandled bucket type',
]

/** Objects whose printing would reveal Signal key material. */
const SECRET_CLASSES = new Set(['SessionEntry', 'SessionRecord'])

const METHODS = ['log', 'info', 'warn', 'error', 'debug', 'trace'] as const
const INSTALLED = Symbol.for('linkdesk.libsignalConsoleFilter')

type ConsoleLike = Pick<Console, (typeof METHODS)[number]>

/** Whether a console call comes from libsignal: one of its known messages, or any argument a session object. */
export function isLibsignalConsoleCall(args: readonly unknown[]): boolean {
  const first = args[0]
  if (typeof first === 'string' && LIBSIGNAL_PREFIXES.some((prefix) => first.startsWith(prefix))) return true
  return args.some(
    (arg) => typeof arg === 'object' && arg !== null && SECRET_CLASSES.has(arg.constructor?.name ?? ''),
  )
}

/**
 * libsignal (under Baileys) prints whole session objects, private keys included, with console.* and cannot be
 * configured not to. This wraps the console methods once per process so those calls are dropped; only the
 * message's first words go to the logger, at debug. Everything else is printed unchanged.
 */
export function installLibsignalConsoleFilter(logger: Logger, target: ConsoleLike = console): void {
  const marked = target as ConsoleLike & { [INSTALLED]?: boolean }
  if (marked[INSTALLED]) return
  marked[INSTALLED] = true
  const log = logger.child({ module: 'libsignal' })
  for (const method of METHODS) {
    const original = target[method].bind(target)
    target[method] = (...args: unknown[]) => {
      if (!isLibsignalConsoleCall(args)) return original(...args)
      const first = args[0]
      if (typeof first === 'string') log.debug({ level: method }, first.split(':')[0] ?? 'libsignal message')
    }
  }
}
