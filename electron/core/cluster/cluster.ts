import { randomBytes, timingSafeEqual } from 'node:crypto'
import { openPool, type SharedPool } from '../store/postgres/pool'
import { CoalescedRunner } from '../coalesced-runner'
import {
  type CommitAnnouncements,
  type Coordinator,
  leaseLost,
  type OwnershipHooks,
  type ReplacedVerdict,
  type Route,
  type WriteFence,
} from '../contract/coordination'
import type { MetricsProvider } from '../contract/metrics'
import type { InstanceStatus } from '../contract/instance-state'
import type { Logger } from '../logger'
import { clusterHealth, clusterMetricsProvider } from './cluster-views'
import { type Fence, NodeLease } from './node-lease'
import { ReplacedWindow } from './replaced-window'
import { Holdings } from './holdings'
import { LeaseRecovery } from './lease-recovery'
import { Placement } from './placement'
import { PeerStatuses } from './peer-statuses'
import { commitAnnouncements } from './commit-announcements'
import { Routing } from './routing'
import { nodeWriteFence } from './write-fence'
import { Notifications } from '../store/postgres/notifications'

export { ADOPTION_CONCURRENCY, REBALANCE_BATCH } from './placement'

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

/**
 * This node's part in a cluster of headless nodes sharing one PostgreSQL database: its lease, the instances
 * it holds (each with its fencing token), placement of new and orphaned instances, routing of requests to the
 * owner, the statuses peers report, and the drain. Ownership changes are told to the hooks given at `join`
 * (the instance manager connects or stops the account, the event service starts or stops its deliveries).
 * It joins, ticks and drains; the rest is done by its parts, built here and handed what they share: the
 * instances held (`Holdings`), the recovery from a lease in doubt (`LeaseRecovery`), where instances run
 * (`Placement`), where requests are answered (`Routing`), the statuses (`PeerStatuses`), the write fence
 * (`nodeWriteFence`) and the commit announcements (`commitAnnouncements`).
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
  private readonly holdings: Holdings
  private readonly recovery: LeaseRecovery
  private readonly placement: Placement
  private readonly routing: Routing
  private readonly statuses: PeerStatuses
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
  private closed = false
  /** Set by the timer every TTL/3, taken by the tick that rebalances: one batch per TTL/3 at most. */
  private rebalanceDue = false

  /** Every node (this one too) hears of committed events: one notification per 20 ms at most. */
  readonly commits: CommitAnnouncements

  /** Nothing is read or written until `join`; the stores' writes carry its fence from the start. */
  constructor(private readonly options: ClusterOptions) {
    this.log = options.logger.child({ module: 'cluster', nodeId: options.nodeId })
    this.pool = options.pool
    this.leasePool = openPool(options.url, { logger: this.log, size: 1 })
    this.notifications = new Notifications(options.url, this.pool, options.logger, () => this.wake())
    // What most parts share: where they read and write, whose node they speak for, its lease and its state.
    const node = { pool: this.pool, nodeId: options.nodeId, log: this.log, lease: () => this.lease }
    const closed = () => this.closed
    const hooks = () => this.hooks
    const startFailed = (instanceId: string) => this.recovery.doubt(instanceId)
    this.holdings = new Holdings({ ...node, closed, hooks, startFailed })
    const holdings = this.holdings
    const mayAct = (instanceId: string) => this.mayAct(instanceId)
    this.recovery = new LeaseRecovery({
      ...node,
      holdings,
      startLease: () => this.startLease(),
      forgetLease: () => (this.lease = undefined),
      closed,
      mayAct,
      wake: () => this.wake(),
    })
    const notifications = this.notifications
    this.placement = new Placement({ ...node, holdings, notifications, closed, hooks })
    this.routing = new Routing({
      ...node,
      holdings,
      placement: this.placement,
      mayAct,
      alive: () => this.alive,
    })
    this.statuses = new PeerStatuses({ ...node, holdings })
    this.fence = nodeWriteFence({ ...node, holdings, recovery: this.recovery })
    this.commits = commitAnnouncements(this.notifications, options.nodeId)
  }

  /** Instances taken here, given up (drained, handed over, restarted) and lost, since the start. */
  get counts(): Readonly<Holdings['counts']> {
    return this.holdings.counts
  }

  /** The fences of the instances held here, by instance id. */
  private get fences(): ReadonlyMap<string, Fence> {
    return this.holdings.fences
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
    return this.holdings.handover(instanceId)
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
  readonly fence: WriteFence

  /** Where a request for the instance is answered: here, on its owner, or where it is placed (see `Routing`). */
  route(instanceId: string, forwarded: boolean): Promise<Route> {
    return this.routing.route(instanceId, forwarded)
  }

  /** Where a new instance goes: the least-loaded live node (here on a tie). */
  placeNew(forwarded: boolean): Promise<Route> {
    return this.routing.placeNew(forwarded)
  }

  /** Takes a new instance at once (it was placed here). */
  async adoptNew(instanceId: string): Promise<void> {
    if (!(await this.holdings.take(instanceId))) throw leaseLost(instanceId)
  }

  /** Lets go of a destroyed instance: its owner row goes (its id is never used again). */
  async dropped(instanceId: string): Promise<void> {
    await this.holdings.part(instanceId, 'released')
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
    await this.holdings.part(instanceId, 'lost')
    return false
  }

  /** Records the status of an instance held here, for peers that list it. */
  reportStatus(instanceId: string, status: InstanceStatus): void {
    this.statuses.report(instanceId, status)
  }

  /** The status a peer last reported for an instance it holds (refreshed every TTL/3). */
  reportedStatus(instanceId: string): InstanceStatus | undefined {
    return this.statuses.reported(instanceId)
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
    for (const fence of held) await this.holdings.part(fence.instanceId, 'released')
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
    lease.start(() => void this.recovery.afterLoss(lease))
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
    if (!this.lease) await this.recovery.rejoin()
    if (!this.lease?.alive || this.closed) return
    const [live, orphans, owned] = await Promise.all([
      this.placement.liveNodes(),
      this.placement.orphans(),
      this.statuses.read(),
    ])
    this.statuses.keep(owned)
    const { loads, unplaced } = await this.placement.takeShare(live, orphans)
    if (this.closed) return
    await this.recovery.restartDoubtful()
    if (unplaced === 0 && this.rebalanceDue) {
      this.rebalanceDue = false
      await this.placement.rebalance(loads)
    }
  }
}
