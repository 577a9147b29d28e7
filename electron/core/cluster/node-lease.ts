import { performance } from 'node:perf_hooks'
import type { SharedClient, SharedPool } from '../store/postgres/pool'
import { leaseLost } from '../contract/coordination'
import type { Logger } from '../logger'

export interface NodeLeaseOptions {
  nodeId: string
  /** Where peers reach this node (its internal API address). */
  address: string
  /** How long a renewal keeps the node's lease, on PostgreSQL's clock. */
  ttlMs: number
  /** Taken off the local deadline: the node stops acting this long before its lease could have expired. */
  marginMs: number
  logger: Logger
  /** A monotonic clock in milliseconds (performance.now): the local deadline must not follow wall-clock jumps. */
  monotonic?: () => number
  /**
   * Where the lease itself is renewed (joined, left): a connection of its own, so a renewal never queues
   * behind the node's traffic on the shared pool (hundreds of takeovers, a burst of messages). Unset: the pool.
   */
  renewals?: Pick<SharedPool, 'query'>
}

/** What a fenced write proves: this node's lease and its token for the instance. */
export interface Fence {
  instanceId: string
  token: number
}

/**
 * A node's fenced lease on PostgreSQL: its `nodes` row expires on the database's clock unless renewed (every
 * TTL/3), and each instance it runs has an `instance_owner` row with a fencing token. An instance is taken
 * over only when its owner's lease has expired (or it was released), by one conditional statement that
 * increments the token; every write of an instance first checks its token and the node's lease and holds
 * them until it commits (`fence`). No advisory locks: poolers, pooled connections and a paused process that
 * keeps its TCP connection all break those. The node also keeps a local deadline on the monotonic clock (the
 * last renewal sent + TTL − margin): past it, `alive` is false and the node must not act (no receipt, no POST,
 * no connect), even if it was paused and its database connection still looks fine.
 */
export class NodeLease {
  private readonly monotonic: () => number
  private readonly log: Logger
  /** Monotonic time of the last renewal the database confirmed was sent; the local deadline counts from it. */
  private renewedFrom = Number.NEGATIVE_INFINITY
  private timer: NodeJS.Timeout | undefined
  private lost = false
  private readonly renewals: Pick<SharedPool, 'query'>

  private constructor(
    private readonly pool: SharedPool,
    private readonly options: NodeLeaseOptions,
  ) {
    this.renewals = options.renewals ?? pool
    this.monotonic = options.monotonic ?? (() => performance.now())
    this.log = options.logger.child({ module: 'lease', nodeId: options.nodeId })
  }

  /** Registers the node (or takes its row back after a restart) with a fresh lease. */
  static async join(pool: SharedPool, options: NodeLeaseOptions): Promise<NodeLease> {
    const lease = new NodeLease(pool, options)
    const sentAt = lease.monotonic()
    await lease.renewals.query(
      `INSERT INTO nodes (id, address, expires_at) VALUES ($1, $2, now() + $3 * interval '1 millisecond')
       ON CONFLICT (id) DO UPDATE SET address = EXCLUDED.address, expires_at = EXCLUDED.expires_at,
         started_at = now()`,
      [options.nodeId, options.address, options.ttlMs],
    )
    lease.renewedFrom = sentAt
    return lease
  }

  get nodeId(): string {
    return this.options.nodeId
  }

  /** Whether the node may act: its lease is not lost and the local deadline has not passed. */
  get alive(): boolean {
    return !this.lost && this.monotonic() < this.renewedFrom + this.options.ttlMs - this.options.marginMs
  }

  /**
   * Renews every TTL/3 until `stop`; a renewal that finds the lease expired marks it lost for good. A renewal
   * sent past half the slack the TTL leaves (TTL − TTL/3 − margin) is logged as late, with how late (the event
   * loop was blocked); `renew` logs one answered after more than TTL/3. A lease lost under load then says which.
   */
  start(onLost: () => void): void {
    const every = Math.max(1, Math.floor(this.options.ttlMs / 3))
    const slack = (this.options.ttlMs - this.options.marginMs - every) / 2
    let due = this.monotonic() + every
    this.timer = setInterval(() => {
      const sentAt = this.monotonic()
      const late = sentAt - due
      due = sentAt + every
      if (late > slack)
        this.log.warn({ lateMs: Math.round(late) }, 'lease renewal sent late: the event loop was blocked')
      this.renew().then(
        (kept) => {
          if (!kept) {
            this.stop()
            onLost()
          }
        },
        (error: unknown) => this.log.warn({ err: error }, 'lease renewal failed; retrying'),
      )
    }, every)
    this.timer.unref()
  }

  stop(): void {
    clearInterval(this.timer)
    this.timer = undefined
  }

  /**
   * Extends the lease, unless it already expired on the database's clock (peers may have taken the node's
   * instances over): then resolves to false, and the node must stop. The local deadline moves to the time
   * this renewal was sent, not answered.
   */
  async renew(): Promise<boolean> {
    if (this.lost) return false
    const sentAt = this.monotonic()
    const { rowCount } = await this.renewals.query(
      `UPDATE nodes SET expires_at = now() + $2 * interval '1 millisecond'
       WHERE id = $1 AND expires_at > now()`,
      [this.options.nodeId, this.options.ttlMs],
    )
    const tookMs = this.monotonic() - sentAt
    if (tookMs > this.options.ttlMs / 3)
      this.log.warn(
        { tookMs: Math.round(tookMs) },
        'lease renewal answered late: the database, or the event loop reading its answer, was slow',
      )
    if (rowCount !== 1) {
      this.lost = true
      this.log.warn('the node lease expired before it was renewed; its instances may have moved')
      return false
    }
    this.renewedFrom = Math.max(this.renewedFrom, sentAt)
    return true
  }

  /**
   * Takes an instance: new, ours already (a restart), released, or owned by a node whose lease expired. The
   * token is incremented every time, so whatever held the instance before can no longer write for it.
   * Resolves to the fence, or undefined while a live node owns it.
   */
  async acquire(instanceId: string): Promise<Fence | undefined> {
    if (!this.alive) return undefined
    const { rows } = await this.pool.query<{ token: string }>(
      `INSERT INTO instance_owner (instance_id, node_id, token)
       SELECT $1, $2, 1 WHERE EXISTS (SELECT 1 FROM nodes WHERE id = $2 AND expires_at > now())
       ON CONFLICT (instance_id) DO UPDATE SET node_id = EXCLUDED.node_id, token = instance_owner.token + 1
       WHERE instance_owner.node_id = EXCLUDED.node_id
          OR NOT EXISTS (SELECT 1 FROM nodes n WHERE n.id = instance_owner.node_id AND n.expires_at > now())
       RETURNING token`,
      [instanceId, this.options.nodeId],
    )
    const token = rows[0]?.token
    return token === undefined ? undefined : { instanceId, token: Number(token) }
  }

  /** Gives an instance up with a token bump (draining): a peer may take it at once, without waiting for a TTL. */
  async release(fence: Fence): Promise<void> {
    await this.pool.query(
      `UPDATE instance_owner SET node_id = '', token = token + 1
       WHERE instance_id = $1 AND node_id = $2 AND token = $3`,
      [fence.instanceId, this.options.nodeId, fence.token],
    )
  }

  /**
   * Inside a write transaction of the instance, before its writes: checks the token and the node's lease and
   * holds them until the commit (a takeover waits for it, and then sees the write). Throws `lease_lost` (and
   * the caller rolls back and stops the instance) when the instance moved or the lease expired.
   */
  async fence(client: SharedClient, fence: Fence): Promise<void> {
    if (!this.alive) throw leaseLost(fence.instanceId)
    const { rowCount } = await client.query(
      `SELECT 1 FROM instance_owner o JOIN nodes n ON n.id = o.node_id
       WHERE o.instance_id = $1 AND o.node_id = $2 AND o.token = $3 AND n.expires_at > now()
       FOR SHARE OF o FOR KEY SHARE OF n`,
      [fence.instanceId, this.options.nodeId, fence.token],
    )
    if (rowCount !== 1) throw leaseLost(fence.instanceId)
  }

  /** Leaves the cluster: the lease ends now, so peers see the node gone at once. */
  async leave(): Promise<void> {
    this.stop()
    this.lost = true
    await this.renewals.query('UPDATE nodes SET expires_at = now() WHERE id = $1', [this.options.nodeId])
  }
}
