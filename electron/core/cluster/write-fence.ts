import { type FenceClaim, leaseLost, nodeLeaseLost, type WriteFence } from '../contract/coordination'
import type { Holdings } from './holdings'
import type { LeaseRecovery } from './lease-recovery'
import type { NodeLease } from './node-lease'

export interface NodeWriteFenceOptions {
  nodeId: string
  /** The instances held here, with their tokens: the claims name them. */
  holdings: Holdings
  /** Told of the writes refused: it restarts the instances in doubt and checks which are still held. */
  recovery: LeaseRecovery
  /** The node's lease of the moment (none while it joins again). */
  lease: () => NodeLease | undefined
}

/**
 * The fence this node's writes carry: the claims a write transaction checks first (each instance's token and
 * the node's lease), and what a write the database refused sets off (see `Cluster.fence`).
 */
export function nodeWriteFence(options: NodeWriteFenceOptions): WriteFence {
  const { nodeId, holdings, recovery } = options
  const alive = () => options.lease()?.alive ?? false
  return {
    claims: (instanceIds) => {
      const rows: FenceClaim[] = []
      for (const instanceId of new Set(instanceIds)) {
        const fence = holdings.fences.get(instanceId)
        if (!fence) throw leaseLost(instanceId)
        if (!alive()) {
          // Held, but the lease is in doubt (a pause, a slow renewal): this write is refused, and if the lease
          // holds after all, the instance restarts (its session may have counted on the write).
          recovery.doubt(instanceId)
          throw leaseLost(instanceId)
        }
        rows.push({ instance_id: instanceId, node_id: nodeId, token: fence.token })
      }
      return rows
    },
    refused: (instanceId) => {
      if (holdings.fences.has(instanceId)) recovery.doubt(instanceId)
      void recovery.verify()
      return leaseLost(instanceId)
    },
    node: () => {
      if (!alive()) throw nodeLeaseLost(nodeId)
      return nodeId
    },
  }
}
