/* eslint-disable no-console -- this module exists to filter libsignal's console output in tests */

const NOISE = [
  /^Closing session/,
  /^Closing open session/,
  /^Opening session/,
  /^Removing old closed session/,
  /^Session already/,
  /^Migrating session/,
  // Expected while the retry tests break sessions on purpose.
  /^Failed to decrypt message with any known session/,
  /^Session error/,
  /^Decrypted message with closed session/,
]

let installed = false

/**
 * libsignal logs whole session objects with console.info/warn on every new session. In tests that floods the
 * output, so this drops exactly those lines; everything else still prints.
 */
export function quietLibsignal(): void {
  if (installed) return
  installed = true
  for (const method of ['info', 'warn', 'log', 'error'] as const) {
    const original = console[method].bind(console)
    console[method] = (...args: unknown[]) => {
      if (typeof args[0] === 'string' && NOISE.some((pattern) => pattern.test(args[0] as string))) return
      original(...args)
    }
  }
}
