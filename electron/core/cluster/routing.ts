import { AppError } from '../errors'
import type { Route } from '../contract/coordination'
import type { Holdings } from './holdings'
import type { Placement } from './placement'

export interface RoutingOptions {
  nodeId: string
  /** The instances held here: one a request places here is taken into them. */
  holdings: Holdings
  /** Who owns an instance, and which live node is the least loaded. */
  placement: Placement
  /** Whether this node may act for the instance now (it holds it and its lease is live). */
  mayAct: (instanceId: string) => boolean
  /** Whether the node's lease is live (within its local deadline). */
  alive: () => boolean
}

/** Where a request is answered: here, on the live peer that owns the instance, or where it is placed anew. */
export class Routing {
  /** Reads nothing until asked. */
  constructor(private readonly options: RoutingOptions) {}

  /**
   * Where a request for the instance is answered. Held here: here. Owned by a live peer: there. Otherwise (new,
   * released, or its node died) it is placed: on the least-loaded live node, or here when a peer forwarded it.
   */
  async route(instanceId: string, forwarded: boolean): Promise<Route> {
    const { nodeId, holdings, placement } = this.options
    // An instance being taken here is answered once it is started (its settings and keys read again).
    await holdings.adoption(instanceId)
    if (this.options.mayAct(instanceId)) return { kind: 'here' }
    if (!this.options.alive())
      throw new AppError('unavailable', 'This node is not part of the cluster right now.')
    const owner = await placement.ownerOf(instanceId)
    if (owner && owner.nodeId !== nodeId) return owner
    if (!forwarded && owner?.nodeId !== nodeId) {
      const target = await placement.leastLoaded()
      if (target.kind === 'peer') return target
    }
    if (await holdings.take(instanceId)) return { kind: 'here' }
    const winner = await placement.ownerOf(instanceId)
    if (winner && winner.nodeId !== nodeId && !forwarded) return winner
    throw new AppError('unavailable', 'Another node is taking this instance over; try again in a moment.')
  }

  /** Where a new instance goes: the least-loaded live node (here on a tie), or here when a peer forwarded it. */
  async placeNew(forwarded: boolean): Promise<Route> {
    if (forwarded) return { kind: 'here' }
    return this.options.placement.leastLoaded()
  }
}
