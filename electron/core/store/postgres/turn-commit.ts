import type pg from 'pg'
import type { JsonStatement } from './statements'
import { runFenced, type WriteFence } from './write-fence'

/** What one caller commits: its statements, and the instances they write (for the fence). */
export interface CommitPart {
  instanceIds: readonly string[]
  statements: readonly JsonStatement[]
}

interface Waiting {
  part: CommitPart
  resolve(rowCounts: number[]): void
  reject(error: unknown): void
}

/**
 * The writes of the event store and the message store, committed together: everything asked for in one turn of
 * the event loop, or while a transaction is under way, goes in one multi-statement query (one round trip). An
 * incoming message's stored row and its event thus share one commit. If a shared transaction fails, its parts are
 * tried again one by one, so one refused part fails alone, as it would have on its own; parts keep the order
 * they were asked in.
 */
export class TurnCommit {
  private waiting: Waiting[] = []
  private state: 'idle' | 'scheduled' | 'running' = 'idle'

  constructor(
    private readonly pool: pg.Pool,
    private readonly fence?: WriteFence,
  ) {}

  /** Commits the part; answers the row count of each of its statements. */
  commit(part: CommitPart): Promise<number[]> {
    return new Promise((resolve, reject) => {
      this.waiting.push({ part, resolve, reject })
      if (this.state !== 'idle') return
      // The rest of this turn joins: an incoming message's row is asked for a few promises before its event.
      this.state = 'scheduled'
      setImmediate(() => void this.drain())
    })
  }

  private async drain(): Promise<void> {
    this.state = 'running'
    while (this.waiting.length > 0) {
      const group = this.waiting
      this.waiting = []
      try {
        const counts = await this.run(group.map(({ part }) => part))
        let at = 0
        for (const { part, resolve } of group) {
          resolve(counts.slice(at, at + part.statements.length))
          at += part.statements.length
        }
      } catch (error) {
        if (group.length === 1) group[0]!.reject(error)
        else for (const { part, resolve, reject } of group) await this.run([part]).then(resolve, reject)
      }
    }
    this.state = 'idle'
  }

  private run(parts: readonly CommitPart[]): Promise<number[]> {
    return runFenced(
      this.pool,
      this.fence,
      () => new Set(parts.flatMap(({ instanceIds }) => instanceIds)),
      parts.flatMap(({ statements }) => statements),
    )
  }
}
