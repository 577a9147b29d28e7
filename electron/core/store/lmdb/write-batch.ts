import type { RootDatabase } from 'lmdb'

/**
 * Proof that writes are staged inside one batch (only `writeBatch` makes one): store methods that write
 * several records take it, so they cannot be called where their writes' failure would go unreported.
 */
export interface WriteBatch {
  readonly staged: true
}

const BATCH: WriteBatch = { staged: true }

/**
 * Runs `stage` (puts and removes on `db` or other sub-databases of its environment) as one LMDB batch: the writes commit together in
 * one transaction or not at all, and the one promise answers for all of them. Inside a batch each put or
 * remove answers an already-settled promise, so none of them can reject unhandled; the caller handles this one.
 */
export async function writeBatch(
  db: Pick<RootDatabase, 'batch'>,
  stage: (batch: WriteBatch) => void,
): Promise<void> {
  await db.batch(() => stage(BATCH))
}
