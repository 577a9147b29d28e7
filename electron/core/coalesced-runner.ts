/**
 * Runs an async job on request, one run at a time: requests made during a run make exactly one more run after
 * it. A failed run is reported to `onError`, never thrown.
 */
export class CoalescedRunner {
  private running: Promise<void> | undefined
  private again = false
  private stopped = false
  /** Callers of `flush` waiting for a run that begins after their call. */
  private waiting: Array<() => void> = []

  constructor(
    private readonly job: () => Promise<void>,
    private readonly onError: (error: unknown) => void,
  ) {}

  /** Runs the job now, or once more after the run under way. */
  run(): void {
    if (this.stopped) return
    if (this.running) {
      this.again = true
      return
    }
    const served = this.waiting
    this.waiting = []
    this.running = this.job()
      .catch(this.onError)
      .finally(() => {
        this.running = undefined
        for (const resolve of served) resolve()
        if (this.again) {
          this.again = false
          this.run()
        }
      })
  }

  /** Runs the job and resolves once a run begun after this call has ended (at once after `stop`). */
  flush(): Promise<void> {
    if (this.stopped) return Promise.resolve()
    return new Promise((resolve) => {
      this.waiting.push(resolve)
      this.run()
    })
  }

  /** Runs no more; resolves once the run under way (if any) ended. */
  async stop(): Promise<void> {
    this.stopped = true
    await this.running
    for (const resolve of this.waiting.splice(0)) resolve()
  }
}
