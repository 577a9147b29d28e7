import type pg from 'pg'
import { type JsonStatement, runAtomically } from './statements'

/**
 * In a cluster, what every write transaction of an instance runs first: the claim that this node still holds
 * the instance (its token and lease), checked and locked until the commit; `claims` throws at once, writing
 * nothing, for an instance this node does not hold. `refused` turns the database's refusal into the API's
 * error (and lets the node stop what it lost).
 */
export interface WriteFence {
  claims(instanceIds: Iterable<string>): JsonStatement
  refused(error: unknown): unknown
}

/**
 * A one-statement write of an instance behind the fence: `write` gets the condition to put in its WHERE clause
 * (`linkdesk_holds(...)` with its claims as the next parameter; `true` without a fence) and runs the query.
 */
export async function fencedStatement<T>(
  fence: WriteFence | undefined,
  instanceId: string,
  params: unknown[],
  write: (holds: string) => Promise<T>,
): Promise<T> {
  if (!fence) return write('true')
  const { rows } = fence.claims([instanceId])
  params.push(JSON.stringify(rows))
  try {
    return await write(`linkdesk_holds($${params.length}::jsonb)`)
  } catch (error) {
    throw fence.refused(error)
  }
}

/** Runs the statements atomically, behind the fence's claims for these instances when there is a fence. */
export async function runFenced(
  pool: pg.Pool,
  fence: WriteFence | undefined,
  instanceIds: () => Iterable<string>,
  statements: readonly JsonStatement[],
): Promise<void> {
  if (!fence) return runAtomically(pool, statements)
  const claims = fence.claims(instanceIds())
  try {
    await runAtomically(pool, [claims, ...statements])
  } catch (error) {
    throw fence.refused(error)
  }
}
