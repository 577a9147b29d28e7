import type pg from 'pg'
import { Cluster } from '../cluster/cluster'
import type { OwnershipHooks } from '../contract/coordination'
import { silentLogger } from '../logger'

const NO_HOOKS: OwnershipHooks = { acquired: () => undefined, parted: () => undefined }

/**
 * Node n1 of a cluster on the test database (a 5 s lease, renewed 0.5 s before it ends), joined at an address
 * no one calls and with hooks that do nothing.
 */
export async function joinedClusterNode(pool: pg.Pool): Promise<Cluster> {
  const url = (pool.options as { connectionString: string }).connectionString
  const node = new Cluster({ pool, url, nodeId: 'n1', ttlMs: 5_000, marginMs: 500, logger: silentLogger() })
  await node.join('http://127.0.0.1:1', NO_HOOKS)
  return node
}
