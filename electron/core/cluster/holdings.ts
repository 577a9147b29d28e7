import type { OwnershipHooks, Parting } from '../contract/coordination'
import type { Logger } from '../logger'
import type { Fence, NodeLease } from './node-lease'

export interface HoldingsOptions {
  /** The cluster's logger (its messages keep the cluster's module and node id). */
  log: Logger
  /** The node's lease of the moment: none while it joins again, and nothing is taken then. */
  lease: () => NodeLease | undefined
  /** Whether the node drains or closed: it takes nothing then. */
  closed: () => boolean
  /** Who is told of each instance taken or parted: the hooks given at the cluster's `join`. */
  hooks: () => OwnershipHooks
  /** An instance taken here whose start failed: it is restarted at the next tick if still held. */
  startFailed: (instanceId: string) => void
}

/**
 * The instances this node holds, each with its fencing token, and the telling of their listeners: a take
 * tells them it is acquired, a part that it is lost or released, one at a time per instance (a take waits
 * for a part under way, a second take for the adoption under way). Counts what was taken and given up.
 */
export class Holdings {
  private readonly held = new Map<string, Fence>()
  /** Instances whose listeners are being told this node took them. */
  private readonly adopting = new Map<string, Promise<void>>()
  /** Instances whose listeners are being told they part, until they are done. */
  private readonly parting = new Map<string, Promise<void>>()
  /** Instances taken here, given up (drained, handed over, restarted) and lost, since the start. */
  readonly counts = { acquired: 0, released: 0, lost: 0 }

  /** Holds nothing until the first `take`. */
  constructor(private readonly options: HoldingsOptions) {}

  /** The fences of the instances held here, by instance id, in the order they were taken. */
  get fences(): ReadonlyMap<string, Fence> {
    return this.held
  }

  /** The instance's adoption or parting under way, if any. */
  handover(instanceId: string): Promise<void> | undefined {
    return this.adopting.get(instanceId) ?? this.parting.get(instanceId)
  }

  /** The instance's adoption under way, if any: a request for it is answered once it is started. */
  adoption(instanceId: string): Promise<void> | undefined {
    return this.adopting.get(instanceId)
  }

  /** Takes the instance if it is free to take, then tells the listeners; resolves whether it is now held. */
  async take(instanceId: string): Promise<boolean> {
    // A draining node takes nothing (not even one a request names).
    if (this.options.closed()) return false
    // An instance still being stopped here (lost or released) is stopped before it starts again.
    await this.parting.get(instanceId)
    const fence = await this.options.lease()?.acquire(instanceId)
    if (!fence) return false
    const before = this.held.get(instanceId)
    this.held.set(instanceId, fence)
    if (before) {
      // Taken again while its adoption runs (a request raced the tick): it is answered once started.
      await this.adopting.get(instanceId)
      return true
    }
    this.options.log.info({ instanceId, token: fence.token }, 'instance acquired')
    this.counts.acquired += 1
    const adopting = (async () => {
      try {
        await this.options.hooks().acquired(instanceId)
      } catch (error) {
        // Held but not running (its lease was in doubt meanwhile, a read failed): started again at the next tick.
        this.options.startFailed(instanceId)
        this.options.log.error({ err: error, instanceId }, 'starting an acquired instance failed')
      }
    })()
    this.adopting.set(instanceId, adopting)
    await adopting
    this.adopting.delete(instanceId)
    return true
  }

  /**
   * Tells the listeners the instance parts. A lost one is dropped first (nothing may be written for it any
   * more); a released one keeps its fence until they are done, so what it wrote while stopping commits.
   */
  async part(instanceId: string, why: Parting): Promise<void> {
    const fence = this.held.get(instanceId)
    const under = this.parting.get(instanceId)
    if (under || !fence) return under
    const parting = (async () => {
      if (why === 'lost') this.held.delete(instanceId)
      this.counts[why] += 1
      this.options.log.info({ instanceId, why }, why === 'lost' ? 'instance lost' : 'instance released')
      try {
        await this.options.hooks().parted(instanceId, why)
      } catch (error) {
        this.options.log.error({ err: error, instanceId }, 'stopping a parted instance failed')
      }
      if (this.held.get(instanceId) === fence) this.held.delete(instanceId)
    })()
    this.parting.set(instanceId, parting)
    await parting
    this.parting.delete(instanceId)
  }
}
