/**
 * Commits made while a transaction is under way wait and then go together in the next one (group commit):
 * under load one transaction (one WAL flush) carries many commits, and commits keep the order they were made
 * in. If a shared transaction fails, its commits are tried again one by one, so one refused commit fails
 * alone, as it would have on its own.
 */
export class GroupCommit<W> {
  private waiting: Array<{ writes: readonly W[]; resolve(): void; reject(error: unknown): void }> = []
  private running = false

  constructor(private readonly apply: (writes: readonly W[]) => Promise<unknown>) {}

  commit(writes: readonly W[]): Promise<void> {
    return new Promise((resolve, reject) => {
      this.waiting.push({ writes, resolve, reject })
      if (!this.running) void this.drain()
    })
  }

  private async drain(): Promise<void> {
    this.running = true
    while (this.waiting.length > 0) {
      const group = this.waiting
      this.waiting = []
      try {
        await this.apply(group.flatMap(({ writes }) => writes))
        for (const member of group) member.resolve()
      } catch (error) {
        if (group.length === 1) group[0]!.reject(error)
        else
          for (const member of group) {
            await this.apply(member.writes).then(member.resolve, member.reject)
          }
      }
    }
    this.running = false
  }
}
