import { setTimeout as sleep } from 'node:timers/promises'
import { CoalescedRunner } from '../coalesced-runner'
import type { Logger } from '../logger'
import type { SharedLog } from '../store/event-store'
import type { LiveStream } from './live-stream'

const PAGE = 500
/** How often the log is read without a notification (one lost while the listening connection was down). */
const POLL_MS = 1_000

/**
 * Feeds the live stream of a cluster node from the shared log: every event any node commits is published
 * once, with its position, in commit order, when a node announces commits (and at least every second). While
 * no client listens it only keeps its place at the end of the log.
 */
export class LogFollower {
  private position: string | undefined
  private readonly reads: CoalescedRunner
  private timer: NodeJS.Timeout | undefined
  private stopped = false

  constructor(
    private readonly log: SharedLog,
    private readonly live: LiveStream,
    logger: Logger,
  ) {
    this.reads = new CoalescedRunner(
      () => this.read(),
      (error) => logger.warn({ err: error }, 'following the shared event log failed'),
    )
  }

  start(): void {
    this.timer = setInterval(() => this.wake(), POLL_MS)
    this.timer.unref()
    this.wake()
  }

  /** Reads what was committed since the last read (now, or right after the read under way). */
  wake(): void {
    this.reads.run()
  }

  /**
   * Resolves once the event `eventId` (committed) is published, or would have been had a client listened:
   * reads until the place in the log passes it (a transaction still running elsewhere holds reads back).
   */
  async caughtUp(eventId: string): Promise<void> {
    const target = await this.log.positionOf(eventId)
    while (!this.stopped) {
      await this.reads.flush()
      if (this.position !== undefined && this.position >= target) return
      await sleep(5)
    }
  }

  async stop(): Promise<void> {
    this.stopped = true
    clearInterval(this.timer)
    await this.reads.stop()
  }

  private async read(): Promise<void> {
    if (this.live.clients === 0 || this.position === undefined) {
      // Nobody listens: keep the place at the end (a client that connects replays from its own start).
      this.position = await this.log.positionOf()
      return
    }
    for (;;) {
      const page = await this.log.follow({}, this.position, PAGE)
      for (const { stored, position } of page.items) this.live.publish({ kind: 'event', stored, position })
      this.position = page.position
      if (page.done || this.stopped) return
    }
  }
}
