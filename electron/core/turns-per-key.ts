/**
 * Runs work one at a time per key (an instance's changes in the order they came), each key's chain dropped once
 * it is idle. A failed run is the caller's to handle; the next run of the key starts all the same.
 */
export class TurnsPerKey {
  private readonly turns = new Map<string, Promise<unknown>>()

  run<T>(key: string, work: () => Promise<T>): Promise<T> {
    const turn = (this.turns.get(key) ?? Promise.resolve()).then(work)
    const settled = turn.catch(() => undefined)
    this.turns.set(key, settled)
    void settled.then(() => {
      if (this.turns.get(key) === settled) this.turns.delete(key)
    })
    return turn
  }

  /** Resolves once every run started so far, of every key, has ended (failed ones included). */
  async settled(): Promise<void> {
    await Promise.all([...this.turns.values()])
  }
}
