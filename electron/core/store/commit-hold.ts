/**
 * Holds back a store's commits: while a hold is on, each commit asked for waits, and once the last hold is
 * released they start, in the order they were asked for. Writes stay visible to reads meanwhile (the stores
 * keep them as pending); only their durability waits.
 */
export class CommitHold {
  private holds = 0
  private waiting: Array<(dropped?: Error) => void> = []
  /** Who waits for every hold to be released. */
  private idle: Array<() => void> = []
  /** Set when a holder did not keep what it held: the held commits are then dropped, not made. */
  private dropping: Error | undefined

  /** Whether commits are held back now. */
  get active(): boolean {
    return this.holds > 0
  }

  /** Resolves once no hold is on: at once when none is. */
  released(): Promise<void> {
    if (this.holds === 0) return Promise.resolve()
    return new Promise((resolve) => this.idle.push(resolve))
  }

  /** Starts `commit` now, or once every hold is released. */
  run(commit: () => Promise<unknown>): Promise<unknown> {
    if (this.holds === 0) return commit()
    return new Promise((resolve, reject) =>
      this.waiting.push((dropped) => (dropped ? reject(dropped) : void commit().then(resolve, reject))),
    )
  }

  /**
   * Holds commits until the returned function is called (calling it again does nothing). Released with
   * `kept` false, the holder did not keep what its writes depend on: every commit held meanwhile is dropped
   * (rejected, so the store knows its memory is ahead of what is durable) instead of made.
   */
  hold(): (kept?: boolean) => void {
    this.holds += 1
    let released = false
    return (kept = true) => {
      if (released) return
      released = true
      if (!kept) this.dropping ??= new Error('a decrypted message was not kept: its key writes were dropped')
      this.holds -= 1
      if (this.holds === 0) this.start()
    }
  }

  /** Releases every hold (the store is closing): what waits starts now. */
  releaseAll(): void {
    this.holds = 0
    this.start()
  }

  private start(): void {
    const waiting = this.waiting
    const dropped = this.dropping
    const idle = this.idle
    this.waiting = []
    this.dropping = undefined
    this.idle = []
    for (const commit of waiting) commit(dropped)
    for (const resolve of idle) resolve()
  }
}
