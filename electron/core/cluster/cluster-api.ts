import type { FastifyRequest } from 'fastify'
import type { Principal } from '../contract/principal'
import type { InstanceAccess, OperationRoute } from '../api/operation'
import type { SharedLog } from '../events/log-follower'
import type { MetricsProvider } from '../contract/metrics'
import type { InstanceOwnership } from '../instances/instance-manager'
import type { InstanceStatus } from '../contract/instance-state'
import type { SettingsStore } from '../store/settings-store'
import type { Cluster } from './cluster'
import { forward, forwardedPrincipal } from './forwarding'

/** What the API needs of the cluster: this node's id, where calls go, and which callers peers vouch for. */
export function clusterApi(
  cluster: Cluster,
  deps: { settings: SettingsStore; access: InstanceAccess; known(instanceId: string): boolean },
): {
  nodeId: string
  route: OperationRoute
  forwarded(headers: FastifyRequest['headers']): Principal | undefined
} {
  const forwarded = (headers: FastifyRequest['headers']) => forwardedPrincipal(headers, cluster.secret)
  return {
    nodeId: cluster.nodeId,
    forwarded,
    route: async ({ instanceId, principal, request, reply }) => {
      const fromPeer = forwarded(request.headers) !== undefined
      if (instanceId !== undefined) {
        // An instance a peer made a moment ago may not have reached this node's copy of the settings yet.
        if (!deps.known(instanceId)) await deps.settings.reload('instances')
        deps.access(instanceId, principal)
      }
      const where =
        instanceId === undefined
          ? await cluster.placeNew(fromPeer)
          : await cluster.route(instanceId, fromPeer)
      if (where.kind === 'here') return false
      await forward(request, reply, where, { key: cluster.secret, principal })
      return true
    },
  }
}

/** The event service's view of the shared log in a cluster: read in commit order, commits announced by the cluster. */
export function clusterEventLog(cluster: Cluster, log: SharedLog) {
  return {
    follow: log.follow.bind(log),
    positionOf: log.positionOf.bind(log),
    announce: () => cluster.announceEvents(),
    onAnnounced: (listener: () => void) => cluster.onEventsAnnounced(listener),
  }
}

/** The instance manager's view of the cluster. */
export function clusterOwnership(cluster: Cluster): InstanceOwnership {
  return {
    mayAct: (instanceId) => cluster.mayAct(instanceId),
    held: () => cluster.held(),
    stillOwner: (instanceId) => cluster.stillOwner(instanceId),
    reportStatus: (instanceId, status) => void cluster.reportStatus(instanceId, status),
    reportedStatus: (instanceId) => cluster.reportedStatus(instanceId) as InstanceStatus | undefined,
    adoptNew: (instanceId) => cluster.adoptNew(instanceId),
    dropped: (instanceId) => cluster.dropped(instanceId),
  }
}

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
