import { idFloorAt } from '../contract/event-id'
import type { RetentionSettings } from '../contract/event-settings'
import type { Logger } from '../logger'
import type { EventStore, SweepCount } from '../store/event-store'

const DAY_MS = 24 * 60 * 60_000

/** The retention sweep: events and attempts past the retention in force removed, on a timer and on demand. */
export class RetentionSweep {
  private sweepTimer: NodeJS.Timeout | undefined
  private sweeping: Promise<unknown> | undefined

  constructor(
    private readonly deps: {
      store: Pick<EventStore, 'sweep'>
      /** Resolves once every write made so far is committed (the sweep reads what was written). */
      settled: () => Promise<void>
      /** The retention in force at each sweep (the operator may change it). */
      retention: () => RetentionSettings
      now: () => number
      logger: Logger
    },
  ) {}

  /** Sweeps now and then every sweep interval. */
  start(): void {
    this.sweepTimer = setInterval(() => void this.sweep(), this.deps.retention().sweepIntervalMs)
    this.sweepTimer.unref()
    void this.sweep()
  }

  /** Removes events and attempts past the retention; pending events are kept until delivered or failed. */
  async sweep(): Promise<SweepCount> {
    const retention = this.deps.retention()
    const before = idFloorAt(this.deps.now() - retention.maxAgeDays * DAY_MS)
    const run = (async () => {
      await this.deps.settled()
      const removed = await this.deps.store.sweep(before, {
        events: retention.maxEvents,
        deliveries: retention.maxDeliveries,
      })
      if (removed.events + removed.deliveries > 0)
        this.deps.logger.info(removed, 'retention sweep removed old entries')
      return removed
    })()
    this.sweeping = run.catch((error: unknown) =>
      this.deps.logger.error({ err: error }, 'retention sweep failed'),
    )
    return run
  }

  /** Stops the timer and waits for a sweep under way. */
  async close(): Promise<void> {
    clearInterval(this.sweepTimer)
    await this.sweeping
  }
}
