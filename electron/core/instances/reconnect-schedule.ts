import type { Timings } from '../config'
import { backoffDelay } from './backoff'

/**
 * When a lost instance connects again: each retry waits a capped exponential backoff, and the attempts count
 * from zero again once a connection stayed open for the stable-open time. It only keeps the timers; what a
 * retry does is the caller's.
 */
export class ReconnectSchedule {
  private attempt = 0
  private retryTimer: NodeJS.Timeout | undefined
  private stableTimer: NodeJS.Timeout | undefined

  constructor(
    private readonly timings: Pick<Timings, 'reconnectBaseMs' | 'reconnectMaxMs' | 'stableOpenMs'>,
    private readonly random?: () => number,
  ) {}

  /** The delay of the next retry, counted as one more attempt. */
  nextDelay(): number {
    const { reconnectBaseMs, reconnectMaxMs } = this.timings
    const delay = backoffDelay(this.attempt, reconnectBaseMs, reconnectMaxMs, this.random)
    this.attempt += 1
    return delay
  }

  /** Runs `retry` in `delay` ms, instead of any retry planned before. */
  retryIn(delay: number, retry: () => void): void {
    clearTimeout(this.retryTimer)
    this.retryTimer = setTimeout(() => {
      this.retryTimer = undefined
      retry()
    }, delay)
  }

  /** Drops the planned retry, if any. */
  cancelRetry(): void {
    clearTimeout(this.retryTimer)
    this.retryTimer = undefined
  }

  /** A connection opened: the attempts count from zero again if it stays open for the stable-open time. */
  opened(): void {
    clearTimeout(this.stableTimer)
    this.stableTimer = setTimeout(() => (this.attempt = 0), this.timings.stableOpenMs)
  }

  /** A connection closed: if it was not open for the stable-open time, the attempts keep counting. */
  closed(): void {
    clearTimeout(this.stableTimer)
  }
}
