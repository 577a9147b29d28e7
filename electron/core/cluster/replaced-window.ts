/** How many 440s within `REPLACED_WINDOW_MS` stop an instance a cluster node still holds (docs/scaling.md). */
export const REPLACED_LIMIT = 3
export const REPLACED_WINDOW_MS = 10 * 60_000

/**
 * The 440 "replaced" closes of each instance held here, within the window: below the limit the node
 * reconnects (with backoff), at the limit it stops, so it never fights another client for the account.
 */
export class ReplacedWindow {
  private readonly closes = new Map<string, number[]>()

  constructor(
    private readonly limit = REPLACED_LIMIT,
    private readonly windowMs = REPLACED_WINDOW_MS,
  ) {}

  /** Counts a 440 of the instance at `now`: `retry` below the limit, `stop` at it (the count starts over). */
  record(instanceId: string, now: number): 'retry' | 'stop' {
    const recent = (this.closes.get(instanceId) ?? []).filter((at) => now - at < this.windowMs)
    recent.push(now)
    if (recent.length >= this.limit) {
      this.closes.delete(instanceId)
      return 'stop'
    }
    this.closes.set(instanceId, recent)
    return 'retry'
  }
}
