import type pg from 'pg'
import type { WriteFence } from '../../contract/coordination'
import { type JsonStatement, resultsAtomically } from './statements'

export type { WriteFence } from '../../contract/coordination'

/** SQLSTATE raised by linkdesk_fence when a claim no longer holds. */
const FENCE_REFUSED = 'LDL01'

/**
 * In a cluster, every write transaction of an instance runs first the claim that this node still holds the
 * instance (its token and lease), checked and locked until the commit; the fence throws at once, writing
 * nothing, for an instance this node does not hold. A refusal by the database becomes the fence's error (and
 * lets the node stop what it lost); other errors pass through.
 */
function refusal(fence: WriteFence, error: unknown): unknown {
  if ((error as { code?: string }).code !== FENCE_REFUSED) return error
  return fence.refused(/instance (\S+)/.exec((error as Error).message)?.[1] ?? '')
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
  params.push(JSON.stringify(fence.claims([instanceId])))
  try {
    return await write(`linkdesk_holds($${params.length}::jsonb)`)
  } catch (error) {
    throw refusal(fence, error)
  }
}

/**
 * Runs the statements atomically, behind the fence's claims for these instances when there is a fence; answers
 * each statement's row count.
 */
export async function runFenced(
  pool: pg.Pool,
  fence: WriteFence | undefined,
  instanceIds: () => Iterable<string>,
  statements: readonly JsonStatement[],
): Promise<number[]> {
  const results = await resultsFenced(pool, fence, instanceIds, statements)
  return results.map(({ rowCount }) => rowCount ?? 0)
}

/** As runFenced, answering each statement's result (its rows, for a statement that returns some). */
export async function resultsFenced(
  pool: pg.Pool,
  fence: WriteFence | undefined,
  instanceIds: () => Iterable<string>,
  statements: readonly JsonStatement[],
): Promise<pg.QueryResult[]> {
  if (!fence) return resultsAtomically(pool, statements)
  const claims: JsonStatement = { sql: 'SELECT linkdesk_fence($1::jsonb)', rows: fence.claims(instanceIds()) }
  try {
    return (await resultsAtomically(pool, [claims, ...statements])).slice(1)
  } catch (error) {
    throw refusal(fence, error)
  }
}

/** Inside a write transaction: the claims for these instances, checked first and held until its commit. */
export async function claimInTransaction(
  client: pg.ClientBase,
  fence: WriteFence | undefined,
  instanceIds: Iterable<string>,
): Promise<void> {
  if (!fence) return
  try {
    await client.query('SELECT linkdesk_fence($1::jsonb)', [JSON.stringify(fence.claims(instanceIds))])
  } catch (error) {
    throw refusal(fence, error)
  }
}
