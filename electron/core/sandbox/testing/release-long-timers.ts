let installed = false

/**
 * Baileys rc14 races each prekey upload against a 30 s timer that it never clears, so a test process that
 * linked a device stays alive 30 s after its last test. In tests only, timers of 15 s or more do not keep
 * the process alive (node:test holds it open while tests run, so nothing is cut short).
 */
export function releaseLongTimers(): void {
  if (installed) return
  installed = true
  const original = globalThis.setTimeout
  const patched = ((handler: (...args: unknown[]) => void, delay?: number, ...args: unknown[]) => {
    const timer = original(handler, delay, ...args)
    if ((delay ?? 0) >= 15_000) timer.unref()
    return timer
  }) as typeof setTimeout
  globalThis.setTimeout = Object.assign(patched, original)
}
