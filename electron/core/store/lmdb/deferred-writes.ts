import type { RootDatabase } from 'lmdb'

interface Deferred {
  stage: () => void
  resolve: () => void
  reject: (error: unknown) => void
}

/**
 * Writes whose commit nobody outside waits for (an event the journal already holds, a delivery's outcome,
 * which at worst makes a re-post), kept back so that they ride in the next transaction the environment makes
 * for any other write: one commit (one disk flush) then carries them with it instead of one each. LMDB batches
 * the writes of one event-loop turn into one transaction; these are staged into it just before it ends
 * (lmdb's `beforecommit`). Without another write they are staged after `delayMs`, or at once on `flush`.
 */
export class DeferredWrites {
  private waiting: Deferred[] = []
  private timer: NodeJS.Timeout | undefined

  constructor(
    private readonly root: RootDatabase,
    private readonly delayMs: number,
  ) {
    root.on('beforecommit', () => this.stageAll())
  }

  /** Stages `stage` (plain puts and removes) in a later transaction; resolves once that one committed. */
  defer(stage: () => void): Promise<void> {
    return new Promise((resolve, reject) => {
      this.waiting.push({ stage, resolve, reject })
      this.timer ??= setTimeout(() => this.flush(), this.delayMs)
    })
  }

  /** Stages everything kept back into this turn's transaction (a reader needs it committed now). */
  flush(): void {
    this.stageAll()
  }

  private stageAll(): void {
    clearTimeout(this.timer)
    this.timer = undefined
    const group = this.waiting
    if (group.length === 0) return
    this.waiting = []
    const staged = group.filter((member) => {
      try {
        member.stage()
        return true
      } catch (error) {
        member.reject(error)
        return false
      }
    })
    // The promise of the transaction the writes just joined (every write of a turn shares it).
    void this.root.committed.then(
      () => staged.forEach((member) => member.resolve()),
      (error: unknown) => staged.forEach((member) => member.reject(error)),
    )
  }
}
