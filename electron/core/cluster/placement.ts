import type { SharedPool } from '../store/postgres/pool'
import type { OwnershipHooks, Route } from '../contract/coordination'
import type { Logger } from '../logger'
import type { Notifications } from '../store/postgres/notifications'
import type { Holdings } from './holdings'
import type { NodeLease } from './node-lease'

/** How many more instances than the least-loaded node a node holds before it hands any over. */
const REBALANCE_GAP = 2

/** The most instances a node hands over per TTL/3 (its excess over a fair share, up to this). */
export const REBALANCE_BATCH = 20

/**
 * How many instances a node takes over at once (a failover, a rebalancing, a restart): each takeover is a few
 * round trips of its own records (its owner row, its settings record, its outbox queues, its keys), so 8 at once
 * keep a takeover's wait short without taking every connection of the pool (10) from the node's own traffic.
 */
export const ADOPTION_CONCURRENCY = 8

/** A live node, with its address and how many instances it holds. */
export interface LiveNode {
  id: string
  address: string
  load: number
}

/** A linked instance no live node holds, or one this node id held (`node_id`: its owner row's node, if any). */
export interface Orphan {
  id: string
  node_id: string | null
}

export interface PlacementOptions {
  /** The stores' pool, shared: the nodes, the owner rows and the instances' records are read there. */
  pool: SharedPool
  nodeId: string
  /** The cluster's logger (its messages keep the cluster's module and node id). */
  log: Logger
  /** The instances held here: orphans are taken into them, a rebalancing's batch parts from them. */
  holdings: Holdings
  /** The peers are woken through them when instances are handed over. */
  notifications: Notifications
  /** The node's lease of the moment (none while it joins again). */
  lease: () => NodeLease | undefined
  /** Whether the node drains or closed: it takes and hands over nothing then. */
  closed: () => boolean
  /** The hooks given at the cluster's `join`: `movable` says which instances a rebalancing may move. */
  hooks: () => OwnershipHooks
}

/**
 * Where instances run: the live nodes' loads, the least-loaded node (for a new instance or a request no live
 * node answers), this node's share of the orphans, and the rebalancing that hands a node's excess over.
 */
export class Placement {
  /** Reads nothing until asked. */
  constructor(private readonly options: PlacementOptions) {}

  /** The live nodes, each with its address and how many instances it holds. */
  async liveNodes(): Promise<LiveNode[]> {
    const { rows } = await this.options.pool.query<LiveNode>(
      `SELECT n.id, n.address, (SELECT count(*) FROM instance_owner o WHERE o.node_id = n.id)::int AS load
       FROM nodes n WHERE n.expires_at > now()`,
    )
    return rows
  }

  /** The live node that holds the instance, if any (this one too). */
  async ownerOf(instanceId: string): Promise<Extract<Route, { kind: 'peer' }> | undefined> {
    const { rows } = await this.options.pool.query<{ node_id: string; address: string }>(
      `SELECT o.node_id, n.address FROM instance_owner o JOIN nodes n ON n.id = o.node_id
       WHERE o.instance_id = $1 AND n.expires_at > now()`,
      [instanceId],
    )
    const row = rows[0]
    return row && { kind: 'peer', nodeId: row.node_id, address: row.address }
  }

  /** The least-loaded live node: here on a tie with this node. */
  async leastLoaded(): Promise<Route> {
    const rows = await this.liveNodes()
    const loads = new Map(rows.map(({ id, load }) => [id, load]))
    // A tie keeps the instance here: no hop for nothing.
    const here = loads.get(this.options.nodeId)
    const target = leastOf(loads)
    if (target === undefined || target === this.options.nodeId || here === loads.get(target))
      return { kind: 'here' }
    const row = rows.find(({ id }) => id === target)!
    return { kind: 'peer', nodeId: row.id, address: row.address }
  }

  /** The linked instances whose owner is gone or released them, and those this node id holds, by id. */
  async orphans(): Promise<Orphan[]> {
    const { rows } = await this.options.pool.query<Orphan>(
      `SELECT i.id, o.node_id FROM instances i
       LEFT JOIN instance_owner o ON o.instance_id = i.id
       LEFT JOIN nodes n ON n.id = o.node_id AND n.expires_at > now()
       WHERE (i.record->>'linked')::boolean AND (n.id IS NULL OR o.node_id = $1)
       ORDER BY i.id`,
      [this.options.nodeId],
    )
    return rows
  }

  /**
   * Takes back what this node id held and its share of the orphans: each orphan goes to the least-loaded live
   * node, counting the ones given out before it, so every node computes the same split and races are rare (the
   * conditional takeover settles those). Resolves the loads counting that split, and how many orphans this node
   * did not run already.
   */
  async takeShare(
    live: readonly LiveNode[],
    orphans: readonly Orphan[],
  ): Promise<{ loads: Map<string, number>; unplaced: number }> {
    const { nodeId, holdings } = this.options
    const loads = new Map(live.map(({ id, load }) => [id, load]))
    const mine: string[] = []
    // What this node runs already is placed; the query also names it (to take back what it held before a restart).
    const unplaced = orphans.filter(({ id }) => !holdings.fences.has(id))
    for (const { id, node_id: ownerId } of unplaced) {
      if (ownerId === nodeId) {
        mine.push(id)
        continue
      }
      const target = leastOf(loads)
      if (target === undefined) break
      loads.set(target, (loads.get(target) ?? 0) + 1)
      if (target === nodeId) mine.push(id)
    }
    // Several at once (each reads only its own records), a bounded number: the node's own traffic shares the pool.
    await atMostAtOnce(ADOPTION_CONCURRENCY, mine, async (instanceId) => {
      if (!this.options.closed()) await holdings.take(instanceId)
    })
    return { loads, unplaced: unplaced.length }
  }

  /**
   * Once nothing is left to place, at most once per TTL/3 (a tick of the timer; ticks woken by peers'
   * notifications do not count): a node holding more than REBALANCE_GAP instances over the least-loaded one
   * hands over its excess over a fair share (the live nodes' instances over their count, rounded up), at most
   * REBALANCE_BATCH at once, released with a token bump and taken by the least-loaded nodes at once (woken).
   * Only linked instances settled on their connection move (`movable`: connected, past a first login's
   * uploads and sync): every move reconnects a live account.
   */
  async rebalance(loads: ReadonlyMap<string, number>): Promise<void> {
    const { nodeId, holdings } = this.options
    const own = loads.get(nodeId) ?? 0
    const others = [...loads].filter(([id]) => id !== nodeId).map(([, load]) => load)
    if (others.length === 0 || own - Math.min(...others) <= REBALANCE_GAP) return
    const total = [...loads.values()].reduce((sum, load) => sum + load, 0)
    const excess = Math.min(REBALANCE_BATCH, own - Math.ceil(total / loads.size))
    if (excess <= 0) return
    // Linked ones (an instance waiting for its QR scan stays where the scan is shown), the newest taken here.
    const { rows } = await this.options.pool.query<{ id: string }>(
      `SELECT id FROM instances WHERE id = ANY($1) AND (record->>'linked')::boolean`,
      [[...holdings.fences.keys()]],
    )
    const linked = new Set(rows.map(({ id }) => id))
    const movable = this.options.hooks().movable ?? (() => true)
    const batch = [...holdings.fences.values()]
      .filter(({ instanceId }) => linked.has(instanceId) && movable(instanceId))
      .slice(-excess)
    const lease = this.options.lease()
    if (batch.length === 0 || !lease || this.options.closed()) return
    await atMostAtOnce(ADOPTION_CONCURRENCY, batch, async (fence) => {
      await holdings.part(fence.instanceId, 'released')
      await lease.release(fence)
    })
    this.options.log.info(
      { instances: batch.length, load: own },
      'instances handed over to less loaded nodes',
    )
    await this.options.notifications.notify('linkdesk_cluster', `released ${nodeId}`)
  }
}

/** The node with the fewest instances (the smallest id among equals). */
function leastOf(loads: ReadonlyMap<string, number>): string | undefined {
  let best: string | undefined
  for (const [id, load] of loads) {
    const bestLoad = best === undefined ? Infinity : loads.get(best)!
    if (load < bestLoad || (load === bestLoad && best !== undefined && id < best)) best = id
  }
  return best
}

/** Runs `work` for every item, at most `limit` at once; resolves once all are done. */
async function atMostAtOnce<T>(
  limit: number,
  items: readonly T[],
  work: (item: T) => Promise<void>,
): Promise<void> {
  let next = 0
  const lane = async () => {
    while (next < items.length) await work(items[next++]!)
  }
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, lane))
}
