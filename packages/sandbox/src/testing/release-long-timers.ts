let installed = false

/**
 * Baileys rc14 leaves timers armed after a socket ends: each prekey upload races a 30 s timer it never
 * clears, and `end()` drops its close listeners before closing, so queries still in flight keep their
 * `defaultQueryTimeoutMs` timers. A test process would then stay alive that long after its last test. In
 * tests only, timers of 5 s or more do not keep the process alive; open sockets hold it while tests run.
 */
export function releaseLongTimers(): void {
  if (installed) return
  installed = true
  const original = globalThis.setTimeout
  const patched = ((handler: (...args: unknown[]) => void, delay?: number, ...args: unknown[]) => {
    const timer = original(handler, delay, ...args)
    if ((delay ?? 0) >= 5_000) timer.unref()
    return timer
  }) as typeof setTimeout
  globalThis.setTimeout = Object.assign(patched, original)
}
