import type { SharedPool } from '../store/postgres/pool'
import type { InstanceStatus } from '../contract/instance-state'
import type { Logger } from '../logger'
import type { Holdings } from './holdings'

export interface PeerStatusesOptions {
  /** The stores' pool, shared: each status is kept on its instance's owner row. */
  pool: SharedPool
  nodeId: string
  /** The cluster's logger (its messages keep the cluster's module and node id). */
  log: Logger
  /** The instances held here: only their statuses are reported, under their tokens. */
  holdings: Holdings
}

/** A status as an owner row holds it. */
export interface ReportedStatus {
  instance_id: string
  status: unknown
}

/**
 * The statuses of the instances, as their owners report them on their owner rows: this node reports those it
 * holds, and lists the others' as last read (`read`, then `keep`: every tick).
 */
export class PeerStatuses {
  private readonly statuses = new Map<string, unknown>()

  /** Knows of no status until the first `keep`. */
  constructor(private readonly options: PeerStatusesOptions) {}

  /** Records the status of an instance held here, for peers that list it. */
  report(instanceId: string, status: InstanceStatus): void {
    const fence = this.options.holdings.fences.get(instanceId)
    if (!fence) return
    void this.options.pool
      .query('UPDATE instance_owner SET status = $3 WHERE instance_id = $1 AND node_id = $2 AND token = $4', [
        instanceId,
        this.options.nodeId,
        // The QR image stays with the node showing it; peers list the state.
        JSON.stringify({ ...(status as object), qr: null }),
        fence.token,
      ])
      .catch((error: unknown) =>
        this.options.log.warn({ err: error, instanceId }, 'reporting the status failed'),
      )
  }

  /** The status a peer last reported for an instance it holds (as of the last `keep`). */
  reported(instanceId: string): InstanceStatus | undefined {
    return this.statuses.get(instanceId) as InstanceStatus | undefined
  }

  /** Every status the owner rows hold now. */
  async read(): Promise<ReportedStatus[]> {
    const { rows } = await this.options.pool.query<ReportedStatus>(
      'SELECT instance_id, status FROM instance_owner WHERE status IS NOT NULL',
    )
    return rows
  }

  /** Lists these statuses from now on, in place of those kept before. */
  keep(rows: readonly ReportedStatus[]): void {
    this.statuses.clear()
    for (const { instance_id: instanceId, status } of rows) this.statuses.set(instanceId, status)
  }
}
