import { setImmediate as nextTurn } from 'node:timers/promises'
import { AppError } from '../errors'

export interface SendQueueOptions {
  /** Minimum time between the end of one send and the start of the next, per instance; 0 turns pacing off. */
  intervalMs: number
  /** Up to this much random extra time is added to each interval (none when the interval is 0). */
  jitterMs: number
  /** Sends waiting per instance (the one running not counted) before new ones are refused. */
  maxWaiting: number
  now?: () => number
  random?: () => number
  sleep?: (ms: number) => Promise<void>
}

interface Job {
  task: () => Promise<unknown>
  resolve(value: unknown): void
  reject(error: unknown): void
}

interface Lane {
  waiting: Job[]
  running: boolean
  /** When the next send may start (clock of `now`). */
  nextStartAt: number
}

/** The lanes of one instance and the sends it holds (waiting or running) across them. */
interface InstanceLanes {
  lanes: Map<string, Lane>
  held: number
}

/** With pacing on, an instance sends one message at a time whatever the chat: its sends share one lane. */
const PACED_LANE = ''

const realSleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms))

/**
 * The sends of each instance, in order per chat. With pacing on, an instance sends one message at a time,
 * each successful one followed by the pacing interval plus jitter (so a script cannot burst an account into
 * a ban); with pacing off, each chat has its own lane and different chats send in parallel. Bounded per
 * instance (rate_limited with Retry-After when full), and yielding to the event loop before every send so
 * Baileys' timers and incoming frames keep running.
 */
export class SendQueue {
  private readonly instances = new Map<string, InstanceLanes>()
  private readonly now: () => number
  private readonly random: () => number
  private readonly sleep: (ms: number) => Promise<void>
  private closed = false

  constructor(private readonly options: SendQueueOptions) {
    this.now = options.now ?? Date.now
    this.random = options.random ?? Math.random
    this.sleep = options.sleep ?? realSleep
  }

  /** Sends waiting for this instance. */
  waiting(instanceId: string): number {
    let total = 0
    for (const lane of this.instances.get(instanceId)?.lanes.values() ?? []) total += lane.waiting.length
    return total
  }

  /** Sends waiting across all instances. */
  depth(): number {
    let total = 0
    for (const id of this.instances.keys()) total += this.waiting(id)
    return total
  }

  /** Throws rate_limited when this instance's queue is full; callers check before costly work (media fetch). */
  assertRoom(instanceId: string): void {
    if (this.closed) throw new AppError('unavailable')
    // An instance holds the sends running (one per lane) and at most maxWaiting more, across its chats.
    const held = this.instances.get(instanceId)?.held ?? 0
    if (held <= this.options.maxWaiting) return
    const waiting = this.waiting(instanceId)
    const perSendMs = this.options.intervalMs > 0 ? this.options.intervalMs + this.options.jitterMs / 2 : 0
    const retryAfter = Math.max(1, Math.ceil(((waiting + 1) * perSendMs) / 1000))
    throw new AppError(
      'rate_limited',
      `This instance already has ${waiting} sends waiting: retry after ${retryAfter} s.`,
      { retryAfter, details: { waiting } },
    )
  }

  /** Runs `task` in this chat's turn of the instance, after the pacing interval; resolves with its result. */
  run<T>(instanceId: string, chat: string, task: () => Promise<T>): Promise<T> {
    this.assertRoom(instanceId)
    let instance = this.instances.get(instanceId)
    if (!instance) {
      instance = { lanes: new Map(), held: 0 }
      this.instances.set(instanceId, instance)
    }
    const laneKey = this.options.intervalMs > 0 ? PACED_LANE : chat
    let lane = instance.lanes.get(laneKey)
    if (!lane) {
      lane = { waiting: [], running: false, nextStartAt: 0 }
      instance.lanes.set(laneKey, lane)
    }
    instance.held++
    const promise = new Promise<T>((resolve, reject) => {
      lane.waiting.push({ task, resolve: resolve as (value: unknown) => void, reject })
    })
    if (!lane.running) void this.drain(instanceId, instance, laneKey, lane)
    return promise
  }

  /** Refuses the sends still waiting for an instance (it disconnected or was destroyed). */
  cancel(instanceId: string, error: AppError): void {
    const instance = this.instances.get(instanceId)
    if (!instance) return
    for (const lane of instance.lanes.values()) {
      const jobs = lane.waiting.splice(0)
      instance.held -= jobs.length
      for (const job of jobs) job.reject(error)
    }
  }

  /** Refuses every waiting send and all new ones. */
  close(): void {
    this.closed = true
    for (const id of this.instances.keys()) this.cancel(id, new AppError('unavailable'))
  }

  private async drain(
    instanceId: string,
    instance: InstanceLanes,
    laneKey: string,
    lane: Lane,
  ): Promise<void> {
    lane.running = true
    try {
      for (let job = lane.waiting.shift(); job; job = lane.waiting.shift()) {
        const wait = lane.nextStartAt - this.now()
        if (wait > 0) await this.sleep(wait)
        await nextTurn()
        let succeeded = false
        try {
          job.resolve(await job.task())
          succeeded = true
        } catch (error) {
          job.reject(error)
        } finally {
          instance.held--
        }
        // A task that failed (its media could not be fetched, the instance went away) sent nothing to pace.
        const { intervalMs, jitterMs } = this.options
        const paced = succeeded && intervalMs > 0
        const pause = paced ? intervalMs + Math.floor(this.random() * (jitterMs + 1)) : 0
        lane.nextStartAt = this.now() + pause
      }
    } finally {
      lane.running = false
      if (lane.waiting.length === 0 && lane.nextStartAt <= this.now()) instance.lanes.delete(laneKey)
      if (instance.lanes.size === 0 && this.instances.get(instanceId) === instance)
        this.instances.delete(instanceId)
    }
  }
}
