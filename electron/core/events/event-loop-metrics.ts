import { createHistogram, performance, type RecordableHistogram } from 'node:perf_hooks'
import type { MetricsProvider } from '../contract/metrics'

/** How often the loop is looked at, in milliseconds. */
const RESOLUTION_MS = 20

/**
 * How long the event loop was held up: its delay's p99 and maximum since the previous scrape, in seconds.
 * Every instance, renewal and request of a node shares one loop, so a delay near the lease's margin (the TTL
 * less TTL/3 and the margin) is what to alert on before leases expire under load.
 */
export class EventLoopMetrics implements MetricsProvider {
  private readonly histogram: RecordableHistogram = createHistogram()
  private readonly timer: NodeJS.Timeout

  constructor() {
    // A timer of its own, whose lateness is the delay (perf_hooks' monitor loses the interval a reset cuts).
    let last = performance.now()
    this.timer = setInterval(() => {
      const now = performance.now()
      const delayMs = now - last - RESOLUTION_MS
      last = now
      this.histogram.record(Math.max(1, Math.round(delayMs * 1e6)))
    }, RESOLUTION_MS)
    this.timer.unref()
  }

  collect() {
    const seconds = (nanoseconds: number) => (Number.isFinite(nanoseconds) ? nanoseconds / 1e9 : 0)
    const samples = [
      { labels: { quantile: '0.99' }, value: seconds(this.histogram.percentile(99)) },
      { labels: { quantile: '1' }, value: seconds(this.histogram.max) },
    ]
    this.histogram.reset()
    return [
      {
        name: 'linkdesk_event_loop_delay_seconds',
        help: 'Event loop delay since the previous scrape: p99 (quantile 0.99) and maximum (quantile 1).',
        type: 'gauge' as const,
        samples,
      },
    ]
  }

  close(): void {
    clearInterval(this.timer)
  }
}
