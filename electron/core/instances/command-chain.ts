/**
 * One instance's serial work: each piece starts once the one before it settled, whatever its outcome, so two
 * concurrent commands never build two sockets.
 */
export class CommandChain {
  private tail: Promise<unknown> = Promise.resolve()

  /** Runs `work` after everything queued before it; answers its outcome. */
  run<T>(work: () => T | Promise<T>): Promise<T> {
    const run = this.tail.then(work, work)
    this.tail = run.catch(() => undefined)
    return run
  }
}
