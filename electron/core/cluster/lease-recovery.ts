import type { SharedPool } from '../store/postgres/pool'
import type { Logger } from '../logger'
import type { Holdings } from './holdings'
import type { NodeLease } from './node-lease'

export interface LeaseRecoveryOptions {
  /** The stores' pool, shared: the owner rows are read there. */
  pool: SharedPool
  nodeId: string
  /** The cluster's logger (its messages keep the cluster's module and node id). */
  log: Logger
  /** The instances held here: those a peer took meanwhile part from them, the doubtful restart in them. */
  holdings: Holdings
  /** The node's lease of the moment (none once joining again failed: the next tick joins again). */
  lease: () => NodeLease | undefined
  /** Joins with a fresh lease, which becomes the node's lease (and tells this recovery when it is lost). */
  startLease: () => Promise<void>
  /** Drops the node's lease after joining again failed, so that the next tick joins again. */
  forgetLease: () => void
  /** Whether the node drains or closed: nothing is joined or restarted then. */
  closed: () => boolean
  /** Whether this node may act for the instance now (it holds it and its lease is live). */
  mayAct: (instanceId: string) => boolean
  /** Runs a cluster tick now (or once more after the current one). */
  wake: () => void
}

/**
 * How the node recovers when its lease was in doubt: it joins again after the lease expired, keeping what no
 * peer took meanwhile; it checks which instances it still holds after a write the database refused; and it
 * restarts, at the next tick, the instances held here one of whose writes was refused or whose start failed.
 */
export class LeaseRecovery {
  /** Held instances a write of which was refused, or whose start failed: restarted at the next tick if still held. */
  private readonly doubtful = new Set<string>()
  /** While the node joins again after its lease expired (the renewals and a refused write both find out). */
  private rejoining = false

  /** Nothing is in doubt until a write is refused or a start fails. */
  constructor(private readonly options: LeaseRecoveryOptions) {}

  /** Marks a held instance for a restart at the next tick (if it is still held and the lease live then). */
  doubt(instanceId: string): void {
    this.doubtful.add(instanceId)
  }

  /**
   * The lease expired before a renewal (a pause, a stalled machine, a lost database). The node joins again and
   * keeps what no peer took meanwhile (see `rejoin`): stopping every instance instead made nodes that stalled
   * together restart every account at once, which stalled them again.
   */
  async afterLoss(lease: NodeLease): Promise<void> {
    const { log } = this.options
    if (this.options.lease() !== lease || this.options.closed() || this.rejoining) return
    this.rejoining = true
    lease.stop()
    log.warn(
      { instances: this.options.holdings.fences.size },
      'lease lost: joining again, keeping what no peer took',
    )
    try {
      await this.rejoin()
      this.options.wake()
    } catch (error) {
      log.error({ err: error }, 'joining the cluster again failed; retrying at the next tick')
      this.options.forgetLease()
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
  async rejoin(): Promise<void> {
    await this.options.startLease()
    if (this.options.holdings.fences.size === 0) return
    await this.partWithMoved({
      forShare: true,
      found: (count) =>
        this.options.log.info(count, 'joined the cluster again: instances no peer took stay here'),
    })
  }

  /**
   * After a refused write: which instances this node still holds, on the database's word; the rest are lost.
   * A lease found expired is joined again (keeping what no peer took); with the database out of reach the
   * renewals decide.
   */
  async verify(): Promise<void> {
    const lease = this.options.lease()
    if (!lease) return
    const kept = await lease.renew().catch(() => undefined)
    if (kept === false) return this.afterLoss(lease)
    if (kept === undefined) return
    await this.partWithMoved({ forShare: false })
  }

  /**
   * Instances still held here after one of their writes was refused (the lease was in doubt for a moment):
   * their sessions may count on what was not written, so each starts again from what is stored, under a new
   * token (whatever still runs with the old one is fenced out).
   */
  async restartDoubtful(): Promise<void> {
    const { holdings } = this.options
    for (const instanceId of [...this.doubtful]) {
      this.doubtful.delete(instanceId)
      if (this.options.closed() || !this.options.mayAct(instanceId)) continue
      this.options.log.warn(
        { instanceId },
        'a write was refused while the lease was in doubt, or its start failed: restarting the instance',
      )
      await holdings.part(instanceId, 'released')
      await holdings.take(instanceId)
    }
  }

  /**
   * Reads this node's owner rows and parts, as lost, with every instance held here whose token there is not its
   * own any more (a peer took it). `forShare` reads them FOR SHARE: a takeover whose update of a row is under way
   * is waited for, and the row read as it committed. `found` is told how many stay and how many go, before any
   * parts.
   */
  private async partWithMoved(check: {
    forShare: boolean
    found?: (count: { kept: number; lost: number }) => void
  }): Promise<void> {
    const { holdings } = this.options
    const { rows } = await this.options.pool.query<{ instance_id: string; token: string }>(
      `SELECT instance_id, token FROM instance_owner WHERE node_id = $1${check.forShare ? ' FOR SHARE' : ''}`,
      [this.options.nodeId],
    )
    const tokens = new Map(rows.map(({ instance_id: id, token }) => [id, Number(token)]))
    const held = [...holdings.fences]
    const moved = held.filter(([instanceId, fence]) => tokens.get(instanceId) !== fence.token)
    check.found?.({ kept: held.length - moved.length, lost: moved.length })
    for (const [instanceId] of moved) await holdings.part(instanceId, 'lost')
  }
}
