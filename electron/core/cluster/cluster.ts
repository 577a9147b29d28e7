import { randomBytes, timingSafeEqual } from 'node:crypto'
import { openPool, type SharedPool } from '../store/postgres/pool'
import { CoalescedRunner } from '../coalesced-runner'
import {
  type CommitAnnouncements,
  type Coordinator,
  type FenceClaim,
  leaseLost,
  nodeLeaseLost,
  type OwnershipHooks,
  type Parting,
  type ReplacedVerdict,
  type Route,
  type WriteFence,
} from '../contract/coordination'
import { AppError } from '../errors'
import type { MetricsProvider } from '../contract/metrics'
import type { InstanceStatus } from '../contract/instance-state'
import type { Logger } from '../logger'
import { clusterHealth, clusterMetricsProvider } from './cluster-views'
import { type Fence, NodeLease } from './node-lease'
import { ReplacedWindow } from './replaced-window'
import { Notifications } from '../store/postgres/notifications'

export interface ClusterOptions {
  /** The stores' pool, shared: the node's lease, placement and the statuses peers report. */
  pool: SharedPool
  /** The database URL, for the notification connection (a direct one, not pooled). */
  url: string
  nodeId: string
  ttlMs: number
  marginMs: number
  logger: Logger
}

/** A node as health shows it. */
export interface ClusterNode {
  id: string
  address: string
  live: boolean
  instances: number
  started_at: string
  expires_at: string
}

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

/** Commits announced within this long share one notification. */
const ANNOUNCE_MS = 20

/**
 * This node's part in a cluster of headless nodes sharing one PostgreSQL database: its lease, the instances
 * it holds (each with its fencing token), placement of new and orphaned instances, routing of requests to the
 * owner, the statuses peers report, and the drain. Ownership changes are told to the hooks given at `join`
 * (the instance manager connects or stops the account, the event service starts or stops its deliveries).
 */
export class Cluster implements Coordinator {
  private readonly pool: SharedPool
  /** The lease's own connection: a renewal never waits behind the node's traffic on the shared pool. */
  private readonly leasePool: SharedPool
  private leasePoolEnded = false
  private lease: NodeLease | undefined
  /** The key peers present when they forward a request (shared through the database), read at `join`. */
  private secret = ''
  private address = ''
  private readonly fences = new Map<string, Fence>()
  private readonly statuses = new Map<string, unknown>()
  /** Held instances a write of which was refused, or whose start failed: restarted at the next tick if still held. */
  private readonly doubtful = new Set<string>()
  /** Instances whose listeners are being told this node took them. */
  private readonly adopting = new Map<string, Promise<void>>()
  /** Instances whose listeners are being told they part, until they are done. */
  private readonly parting = new Map<string, Promise<void>>()
  /** The recent 440s of the instances held here. */
  private readonly replaced = new ReplacedWindow()
  private hooks: OwnershipHooks = { acquired: () => undefined, parted: () => undefined }
  private readonly notifications: Notifications
  private readonly log: Logger
  private timer: NodeJS.Timeout | undefined
  private readonly ticks = new CoalescedRunner(
    () => this.tick(),
    (error) => this.log.warn({ err: error }, 'the cluster tick failed'),
  )
  private announcing: NodeJS.Timeout | undefined
  /** Instances taken here, given up (drained, handed over, restarted) and lost, since the start. */
  readonly counts = { acquired: 0, released: 0, lost: 0 }
  private closed = false
  /** While the node joins again after its lease expired (the renewals and a refused write both find out). */
  private rejoining = false
  /** Set by the timer every TTL/3, taken by the tick that rebalances: one batch per TTL/3 at most. */
  private rebalanceDue = false

  /** Nothing is read or written until `join`; the stores' writes carry its fence from the start. */
  constructor(private readonly options: ClusterOptions) {
    this.log = options.logger.child({ module: 'cluster', nodeId: options.nodeId })
    this.pool = options.pool
    this.leasePool = openPool(options.url, { logger: this.log, size: 1 })
    this.notifications = new Notifications(options.url, this.pool, options.logger, () => this.wake())
  }

  get nodeId(): string {
    return this.options.nodeId
  }

  /** How often the node looks for instances to take (TTL/3). */
  private get tickMs(): number {
    return Math.max(100, Math.floor(this.options.ttlMs / 3))
  }

  /** The notifications between nodes (settings changes and events use them too). */
  get signals(): Notifications {
    return this.notifications
  }

  /** Every node (this one too) hears of committed events: one notification per 20 ms at most. */
  readonly commits: CommitAnnouncements = {
    announce: () => {
      if (this.announcing) return
      this.announcing = setTimeout(() => {
        this.announcing = undefined
        void this.notifications.notify('linkdesk_events', this.nodeId)
      }, ANNOUNCE_MS)
      this.announcing.unref()
    },
    onAnnounced: (listener) => this.notifications.on('linkdesk_events', listener),
  }

  get forwardKey(): string {
    return this.secret
  }

  vouchesFor(presentedKey: string): boolean {
    const presented = Buffer.from(presentedKey)
    const key = Buffer.from(this.secret)
    return key.length > 0 && presented.length === key.length && timingSafeEqual(presented, key)
  }

  /**
   * Reads (or makes, once per database) the cluster's shared key, joins with a fresh lease advertising
   * `address` (where peers forward requests), then takes back what this node id held before a restart and a
   * fair share of the orphaned instances, and keeps doing so every TTL/3 and whenever a peer releases instances.
   */
  async join(address: string, hooks: OwnershipHooks): Promise<void> {
    await this.pool.query(
      `INSERT INTO cluster_settings (key, value) VALUES ('forward_key', $1) ON CONFLICT (key) DO NOTHING`,
      [randomBytes(32).toString('base64url')],
    )
    const { rows } = await this.pool.query<{ value: string }>(
      `SELECT value FROM cluster_settings WHERE key = 'forward_key'`,
    )
    this.secret = rows[0]!.value
    this.address = address
    this.hooks = hooks
    this.notifications.on('linkdesk_cluster', () => this.wake())
    await this.notifications.open()
    await this.startLease()
    this.timer = setInterval(() => {
      this.rebalanceDue = true
      this.wake()
    }, this.tickMs)
    this.timer.unref()
    await this.tick()
  }

  /** Whether this node may act for the instance now: it holds it and its lease is within its local deadline. */
  mayAct(instanceId: string): boolean {
    return this.fences.has(instanceId) && (this.lease?.alive ?? false)
  }

  holds(instanceId: string): boolean {
    return this.fences.has(instanceId)
  }

  handover(instanceId: string): Promise<void> | undefined {
    return this.adopting.get(instanceId) ?? this.parting.get(instanceId)
  }

  /** Each instance's share of shared work runs on its owner. */
  partitionOf(instanceId: string): string {
    return instanceId
  }

  mayRun(partition: string | undefined): boolean {
    return partition !== undefined && this.mayAct(partition)
  }

  /** None: the instances come one by one, as this node acquires them. */
  restoredHere(): readonly string[] {
    return []
  }

  /** The instances this node holds. */
  held(): string[] {
    return [...this.fences.keys()]
  }

  /**
   * The claims a write transaction checks first, for the instances it writes: each token and the node's lease,
   * held until the commit. Throws `lease_lost` at once, writing nothing, for an instance this node does not
   * hold or once the local deadline has passed. A write the database refused becomes `lease_lost`, after which
   * the node checks which instances it still holds (and stops the others).
   */
  readonly fence: WriteFence = {
    claims: (instanceIds) => this.claims(instanceIds),
    refused: (instanceId) => this.refused(instanceId),
    node: () => {
      if (!this.lease?.alive) throw nodeLeaseLost(this.nodeId)
      return this.nodeId
    },
  }

  private claims(instanceIds: Iterable<string>): FenceClaim[] {
    const rows: FenceClaim[] = []
    for (const instanceId of new Set(instanceIds)) {
      const fence = this.fences.get(instanceId)
      if (!fence) throw leaseLost(instanceId)
      if (!this.lease?.alive) {
        // Held, but the lease is in doubt (a pause, a slow renewal): this write is refused, and if the lease
        // holds after all, the instance restarts (its session may have counted on the write).
        this.doubtful.add(instanceId)
        throw leaseLost(instanceId)
      }
      rows.push({ instance_id: instanceId, node_id: this.nodeId, token: fence.token })
    }
    return rows
  }

  private refused(instanceId: string): Error {
    if (this.fences.has(instanceId)) this.doubtful.add(instanceId)
    void this.verify()
    return leaseLost(instanceId)
  }

  /**
   * Where a request for the instance is answered. Held here: here. Owned by a live peer: there. Otherwise (new,
   * released, or its node died) it is placed: on the least-loaded live node, or here when a peer forwarded it.
   */
  async route(instanceId: string, forwarded: boolean): Promise<Route> {
    // An instance being taken here is answered once it is started (its settings and keys read again).
    await this.adopting.get(instanceId)
    if (this.mayAct(instanceId)) return { kind: 'here' }
    if (!this.lease?.alive)
      throw new AppError('unavailable', 'This node is not part of the cluster right now.')
    const owner = await this.ownerOf(instanceId)
    if (owner && owner.nodeId !== this.nodeId) return owner
    if (!forwarded && owner?.nodeId !== this.nodeId) {
      const target = await this.leastLoaded()
      if (target.kind === 'peer') return target
    }
    if (await this.take(instanceId)) return { kind: 'here' }
    const winner = await this.ownerOf(instanceId)
    if (winner && winner.nodeId !== this.nodeId && !forwarded) return winner
    throw new AppError('unavailable', 'Another node is taking this instance over; try again in a moment.')
  }

  /** Where a new instance goes: the least-loaded live node (here on a tie). */
  async placeNew(forwarded: boolean): Promise<Route> {
    if (forwarded) return { kind: 'here' }
    return this.leastLoaded()
  }

  /** Takes a new instance at once (it was placed here). */
  async adoptNew(instanceId: string): Promise<void> {
    if (!(await this.take(instanceId))) throw leaseLost(instanceId)
  }

  /** Lets go of a destroyed instance: its owner row goes (its id is never used again). */
  async dropped(instanceId: string): Promise<void> {
    await this.part(instanceId, 'released')
    await this.pool.query('DELETE FROM instance_owner WHERE instance_id = $1 AND node_id = $2', [
      instanceId,
      this.nodeId,
    ])
  }

  /**
   * After a 440 "replaced": another node holds it now (on the database's word): `elsewhere`. Still held here:
   * another client took the account, so reconnect with backoff until the window's limit of 440s, then stop.
   */
  async afterReplaced(instanceId: string): Promise<ReplacedVerdict> {
    if (!(await this.stillOwner(instanceId))) return 'elsewhere'
    return this.replaced.record(instanceId, Date.now())
  }

  /** Whether this node still holds the instance, on the database's word (it parts with it otherwise). */
  async stillOwner(instanceId: string): Promise<boolean> {
    const fence = this.fences.get(instanceId)
    if (!fence || !this.lease?.alive) return false
    const { rowCount } = await this.pool.query(
      `SELECT 1 FROM instance_owner o JOIN nodes n ON n.id = o.node_id
       WHERE o.instance_id = $1 AND o.node_id = $2 AND o.token = $3 AND n.expires_at > now()`,
      [instanceId, this.nodeId, fence.token],
    )
    if (rowCount === 1) return true
    await this.part(instanceId, 'lost')
    return false
  }

  /** Records the status of an instance held here, for peers that list it. */
  reportStatus(instanceId: string, status: InstanceStatus): void {
    const fence = this.fences.get(instanceId)
    if (!fence) return
    void this.pool
      .query('UPDATE instance_owner SET status = $3 WHERE instance_id = $1 AND node_id = $2 AND token = $4', [
        instanceId,
        this.nodeId,
        // The QR image stays with the node showing it; peers list the state.
        JSON.stringify({ ...(status as object), qr: null }),
        fence.token,
      ])
      .catch((error: unknown) => this.log.warn({ err: error, instanceId }, 'reporting the status failed'))
  }

  /** The status a peer last reported for an instance it holds (refreshed every TTL/3). */
  reportedStatus(instanceId: string): InstanceStatus | undefined {
    return this.statuses.get(instanceId) as InstanceStatus | undefined
  }

  health(): Promise<Record<string, unknown>> {
    return clusterHealth(this)
  }

  metricsProvider(): MetricsProvider {
    return clusterMetricsProvider(this)
  }

  /** The cluster as health shows it. */
  async nodes(): Promise<ClusterNode[]> {
    const { rows } = await this.pool.query<ClusterNode>(
      `SELECT n.id, n.address, n.expires_at > now() AS live,
              (SELECT count(*) FROM instance_owner o WHERE o.node_id = n.id)::int AS instances,
              to_char(n.started_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS started_at,
              to_char(n.expires_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS expires_at
       FROM nodes n ORDER BY n.id`,
    )
    return rows
  }

  get alive(): boolean {
    return this.lease?.alive ?? false
  }

  /**
   * Drains: stops every instance held here (its listeners stop the account and the deliveries), releases each
   * with a token bump, wakes the peers so they take them over at once, and leaves.
   */
  async drain(): Promise<void> {
    this.closed = true
    clearInterval(this.timer)
    await this.ticks.stop()
    const held = [...this.fences.values()]
    for (const fence of held) await this.part(fence.instanceId, 'released')
    const lease = this.lease
    if (lease) {
      // Out of the live nodes before anything is released: no peer places a released instance back here.
      await lease.leave().catch((error: unknown) => this.log.warn({ err: error }, 'leaving failed'))
      for (const fence of held) {
        await lease.release(fence).catch((error: unknown) => {
          this.log.warn({ err: error, instanceId: fence.instanceId }, 'releasing failed')
        })
      }
    }
    await this.notifications.notify('linkdesk_cluster', `released ${this.nodeId}`)
    if (held.length > 0) this.log.info({ instances: held.length }, 'drained: instances released to the peers')
    await this.notifications.close()
    await this.endLeasePool()
  }

  /** Stops without releasing (the process is going away abruptly; peers take over after the TTL). */
  async close(): Promise<void> {
    this.closed = true
    clearInterval(this.timer)
    this.lease?.stop()
    await this.ticks.stop()
    await this.notifications.close()
    await this.endLeasePool()
  }

  private async endLeasePool(): Promise<void> {
    if (this.leasePoolEnded) return
    this.leasePoolEnded = true
    await this.leasePool.end()
  }

  private async startLease(): Promise<void> {
    const { nodeId, ttlMs, marginMs, logger } = this.options
    const lease = await NodeLease.join(this.pool, {
      nodeId,
      address: this.address,
      ttlMs,
      marginMs,
      logger,
      renewals: this.leasePool,
    })
    this.lease = lease
    lease.start(() => void this.afterLoss(lease))
  }

  /**
   * The lease expired before a renewal (a pause, a stalled machine, a lost database). The node joins again and
   * keeps what no peer took meanwhile (see `rejoin`): stopping every instance instead made nodes that stalled
   * together restart every account at once, which stalled them again.
   */
  private async afterLoss(lease: NodeLease): Promise<void> {
    if (this.lease !== lease || this.closed || this.rejoining) return
    this.rejoining = true
    lease.stop()
    this.log.warn({ instances: this.fences.size }, 'lease lost: joining again, keeping what no peer took')
    try {
      await this.rejoin()
      this.wake()
    } catch (error) {
      this.log.error({ err: error }, 'joining the cluster again failed; retrying at the next tick')
      this.lease = undefined
    } finally {
      this.rejoining = false
    }
  }

  /**
   * Joins with a fresh lease, then parts with every instance held here whose token changed: a peer took it
   * while the lease was expired. One whose token is unchanged was written for by no other node, and no peer can
   * take it now the lease is live again: it runs on (one whose writes were refused meanwhile restarts at the
   * next tick, see `restartDoubtful`). Should a takeover that started before the join still commit after this
   * read, the fence refuses this node's next write for the instance, and `verify` parts with it then.
   */
  private async rejoin(): Promise<void> {
    await this.startLease()
    if (this.fences.size === 0) return
    const { rows } = await this.pool.query<{ instance_id: string; token: string }>(
      'SELECT instance_id, token FROM instance_owner WHERE node_id = $1 FOR SHARE',
      [this.nodeId],
    )
    const tokens = new Map(rows.map(({ instance_id: id, token }) => [id, Number(token)]))
    const taken = [...this.fences].filter(([instanceId, fence]) => tokens.get(instanceId) !== fence.token)
    this.log.info(
      { kept: this.fences.size - taken.length, lost: taken.length },
      'joined the cluster again: instances no peer took stay here',
    )
    for (const [instanceId] of taken) await this.part(instanceId, 'lost')
  }

  /** Runs a tick now (or once more after the current one). */
  private wake(): void {
    this.ticks.run()
  }

  /**
   * Takes back what this node id held and its share of the orphans (linked instances whose owner is gone or
   * released them): each orphan goes to the least-loaded live node, counting the ones given out before it, so
   * every node computes the same split and races are rare (the conditional takeover settles those). Also
   * refreshes the statuses peers report.
   */
  private async tick(): Promise<void> {
    if (!this.lease) await this.rejoin()
    if (!this.lease?.alive || this.closed) return
    const pool = this.pool
    const [live, { rows: orphans }, { rows: owned }] = await Promise.all([
      this.liveNodes(),
      pool.query<{ id: string; node_id: string | null }>(
        `SELECT i.id, o.node_id FROM instances i
         LEFT JOIN instance_owner o ON o.instance_id = i.id
         LEFT JOIN nodes n ON n.id = o.node_id AND n.expires_at > now()
         WHERE (i.record->>'linked')::boolean AND (n.id IS NULL OR o.node_id = $1)
         ORDER BY i.id`,
        [this.nodeId],
      ),
      pool.query<{ instance_id: string; status: unknown }>(
        'SELECT instance_id, status FROM instance_owner WHERE status IS NOT NULL',
      ),
    ])
    this.statuses.clear()
    for (const { instance_id: instanceId, status } of owned) this.statuses.set(instanceId, status)
    const loads = new Map(live.map(({ id, load }) => [id, load]))
    const mine: string[] = []
    // What this node runs already is placed; the query also names it (to take back what it held before a restart).
    const unplaced = orphans.filter(({ id }) => !this.fences.has(id))
    for (const { id, node_id: nodeId } of unplaced) {
      if (nodeId === this.nodeId) {
        mine.push(id)
        continue
      }
      const target = leastOf(loads)
      if (target === undefined) break
      loads.set(target, (loads.get(target) ?? 0) + 1)
      if (target === this.nodeId) mine.push(id)
    }
    // Several at once (each reads only its own records), a bounded number: the node's own traffic shares the pool.
    await atMostAtOnce(ADOPTION_CONCURRENCY, mine, async (instanceId) => {
      if (!this.closed) await this.take(instanceId)
    })
    if (this.closed) return
    await this.restartDoubtful()
    if (unplaced.length === 0 && this.rebalanceDue) {
      this.rebalanceDue = false
      await this.rebalance(loads)
    }
  }

  /**
   * Instances still held here after one of their writes was refused (the lease was in doubt for a moment):
   * their sessions may count on what was not written, so each starts again from what is stored, under a new
   * token (whatever still runs with the old one is fenced out).
   */
  private async restartDoubtful(): Promise<void> {
    for (const instanceId of [...this.doubtful]) {
      this.doubtful.delete(instanceId)
      if (this.closed || !this.mayAct(instanceId)) continue
      this.log.warn(
        { instanceId },
        'a write was refused while the lease was in doubt, or its start failed: restarting the instance',
      )
      await this.part(instanceId, 'released')
      await this.take(instanceId)
    }
  }

  /**
   * Once nothing is left to place, at most once per TTL/3 (a tick of the timer; ticks woken by peers'
   * notifications do not count): a node holding more than REBALANCE_GAP instances over the least-loaded one
   * hands over its excess over a fair share (the live nodes' instances over their count, rounded up), at most
   * REBALANCE_BATCH at once, released with a token bump and taken by the least-loaded nodes at once (woken).
   * Only linked instances settled on their connection move (`movable`: connected, past a first login's
   * uploads and sync): every move reconnects a live account.
   */
  private async rebalance(loads: ReadonlyMap<string, number>): Promise<void> {
    const own = loads.get(this.nodeId) ?? 0
    const others = [...loads].filter(([id]) => id !== this.nodeId).map(([, load]) => load)
    if (others.length === 0 || own - Math.min(...others) <= REBALANCE_GAP) return
    const total = [...loads.values()].reduce((sum, load) => sum + load, 0)
    const excess = Math.min(REBALANCE_BATCH, own - Math.ceil(total / loads.size))
    if (excess <= 0) return
    // Linked ones (an instance waiting for its QR scan stays where the scan is shown), the newest taken here.
    const { rows } = await this.pool.query<{ id: string }>(
      `SELECT id FROM instances WHERE id = ANY($1) AND (record->>'linked')::boolean`,
      [[...this.fences.keys()]],
    )
    const linked = new Set(rows.map(({ id }) => id))
    const movable = this.hooks.movable ?? (() => true)
    const batch = [...this.fences.values()]
      .filter(({ instanceId }) => linked.has(instanceId) && movable(instanceId))
      .slice(-excess)
    const lease = this.lease
    if (batch.length === 0 || !lease || this.closed) return
    await atMostAtOnce(ADOPTION_CONCURRENCY, batch, async (fence) => {
      await this.part(fence.instanceId, 'released')
      await lease.release(fence)
    })
    this.log.info({ instances: batch.length, load: own }, 'instances handed over to less loaded nodes')
    await this.notifications.notify('linkdesk_cluster', `released ${this.nodeId}`)
  }

  /** Takes the instance if it is free to take, then tells the listeners; resolves whether it is now held. */
  private async take(instanceId: string): Promise<boolean> {
    // A draining node takes nothing (not even one a request names).
    if (this.closed) return false
    // An instance still being stopped here (lost or released) is stopped before it starts again.
    await this.parting.get(instanceId)
    const fence = await this.lease?.acquire(instanceId)
    if (!fence) return false
    const before = this.fences.get(instanceId)
    this.fences.set(instanceId, fence)
    if (before) {
      // Taken again while its adoption runs (a request raced the tick): it is answered once started.
      await this.adopting.get(instanceId)
      return true
    }
    this.log.info({ instanceId, token: fence.token }, 'instance acquired')
    this.counts.acquired += 1
    const adopting = (async () => {
      try {
        await this.hooks.acquired(instanceId)
      } catch (error) {
        // Held but not running (its lease was in doubt meanwhile, a read failed): started again at the next tick.
        this.doubtful.add(instanceId)
        this.log.error({ err: error, instanceId }, 'starting an acquired instance failed')
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
  private async part(instanceId: string, why: Parting): Promise<void> {
    const fence = this.fences.get(instanceId)
    const under = this.parting.get(instanceId)
    if (under || !fence) return under
    const parting = (async () => {
      if (why === 'lost') this.fences.delete(instanceId)
      this.counts[why] += 1
      this.log.info({ instanceId, why }, why === 'lost' ? 'instance lost' : 'instance released')
      try {
        await this.hooks.parted(instanceId, why)
      } catch (error) {
        this.log.error({ err: error, instanceId }, 'stopping a parted instance failed')
      }
      if (this.fences.get(instanceId) === fence) this.fences.delete(instanceId)
    })()
    this.parting.set(instanceId, parting)
    await parting
    this.parting.delete(instanceId)
  }

  /**
   * After a refused write: which instances this node still holds, on the database's word; the rest are lost.
   * A lease found expired is joined again (keeping what no peer took); with the database out of reach the
   * renewals decide.
   */
  private async verify(): Promise<void> {
    const lease = this.lease
    if (!lease) return
    const kept = await lease.renew().catch(() => undefined)
    if (kept === false) return this.afterLoss(lease)
    if (kept === undefined) return
    const { rows } = await this.pool.query<{ instance_id: string; token: string }>(
      'SELECT instance_id, token FROM instance_owner WHERE node_id = $1',
      [this.nodeId],
    )
    const tokens = new Map(rows.map(({ instance_id: id, token }) => [id, Number(token)]))
    for (const [instanceId, fence] of [...this.fences]) {
      if (tokens.get(instanceId) !== fence.token) await this.part(instanceId, 'lost')
    }
  }

  private async ownerOf(instanceId: string): Promise<Extract<Route, { kind: 'peer' }> | undefined> {
    const { rows } = await this.pool.query<{ node_id: string; address: string }>(
      `SELECT o.node_id, n.address FROM instance_owner o JOIN nodes n ON n.id = o.node_id
       WHERE o.instance_id = $1 AND n.expires_at > now()`,
      [instanceId],
    )
    const row = rows[0]
    return row && { kind: 'peer', nodeId: row.node_id, address: row.address }
  }

  /** The live nodes, each with its address and how many instances it holds. */
  private async liveNodes(): Promise<Array<{ id: string; address: string; load: number }>> {
    const { rows } = await this.pool.query<{ id: string; address: string; load: number }>(
      `SELECT n.id, n.address, (SELECT count(*) FROM instance_owner o WHERE o.node_id = n.id)::int AS load
       FROM nodes n WHERE n.expires_at > now()`,
    )
    return rows
  }

  private async leastLoaded(): Promise<Route> {
    const rows = await this.liveNodes()
    const loads = new Map(rows.map(({ id, load }) => [id, load]))
    // A tie keeps the instance here: no hop for nothing.
    const here = loads.get(this.nodeId)
    const target = leastOf(loads)
    if (target === undefined || target === this.nodeId || here === loads.get(target)) return { kind: 'here' }
    const row = rows.find(({ id }) => id === target)!
    return { kind: 'peer', nodeId: row.id, address: row.address }
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
