import type { Logger } from './logger'

/**
 * What a start opened, to close in reverse order: each resource pushes its close as it opens, so a start that
 * fails closes exactly what it opened, and `close()` runs every step even when one throws (each failure logged).
 */
export class Closers {
  private readonly steps: Array<{ name: string; close: () => unknown }> = []

  constructor(private readonly logger: Logger) {}

  /** Remembers how to close what just opened. */
  push(name: string, close: () => unknown): void {
    this.steps.push({ name, close })
  }

  /** Runs every step, the last pushed first; resolves to the names of those that failed (each one logged). */
  async closeAll(): Promise<string[]> {
    const failed: string[] = []
    for (let step = this.steps.pop(); step; step = this.steps.pop()) {
      try {
        await step.close()
      } catch (error) {
        failed.push(step.name)
        this.logger.error({ err: error, step: step.name }, 'a closing step failed; the others still run')
      }
    }
    return failed
  }
}

/** A close that runs once however often it is called (a resource whose close is pushed at two points). */
export function once(close: () => unknown): () => Promise<void> {
  let closing: Promise<void> | undefined
  return () =>
    (closing ??= Promise.resolve()
      .then(close)
      .then(() => undefined))
}
