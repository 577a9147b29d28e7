import type { MetricsProvider } from '../contract/metrics'
import type { Cluster } from './cluster'

/** This node's part in the cluster for GET /api/v1/metrics, labelled with the node id. */
export function clusterMetricsProvider(cluster: Cluster): MetricsProvider {
  const labels = { node: cluster.nodeId }
  return {
    collect: () => [
      {
        name: 'linkdesk_node_leases',
        help: 'Instances this node holds.',
        type: 'gauge',
        samples: [{ labels, value: cluster.held().length }],
      },
      {
        name: 'linkdesk_node_lease_alive',
        help: 'Whether this node may act: its lease is held and within its local deadline (1) or not (0).',
        type: 'gauge',
        samples: [{ labels, value: cluster.alive ? 1 : 0 }],
      },
      ...(['acquired', 'released', 'lost'] as const).map((what) => ({
        name: `linkdesk_node_instances_${what}_total`,
        help: `Instances this node ${what === 'acquired' ? 'took' : what === 'released' ? 'gave up (drain, rebalance, restart)' : 'lost (its lease, or a peer took them)'} since it started.`,
        type: 'counter' as const,
        samples: [{ labels, value: cluster.counts[what] }],
      })),
    ],
  }
}

/** Health's view of the cluster: this node, how many instances it holds, and every node. */
export async function clusterHealth(cluster: Cluster): Promise<Record<string, unknown>> {
  return {
    node_id: cluster.nodeId,
    lease_alive: cluster.alive,
    leases: cluster.held().length,
    nodes: await cluster.nodes(),
  }
}
