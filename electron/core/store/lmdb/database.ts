import { mkdirSync } from 'node:fs'
import { join } from 'node:path'
import { open, type Key, type RootDatabase } from 'lmdb'

export type { Database, RootDatabase } from 'lmdb'

/**
 * The app's durable database (LMDB, through the `lmdb` package): ACID transactions that survive a crash at any
 * moment, ordered keys for range scans, and prebuilt N-API binaries that run in plain Node and in Electron
 * alike. Each part opens its own named sub-database from this root.
 */
export function openDatabase(dataDir: string): RootDatabase {
  const path = join(dataDir, 'db')
  mkdirSync(path, { recursive: true, mode: 0o700 })
  return handledBatchStarts(open({ path, maxDbs: 32, compression: false, encoding: 'msgpack' }))
}

/**
 * lmdb starts each batch with a write of its own whose promise it keeps to itself: when the commit fails (the
 * disk full), that promise would reject unhandled beside the writes' own, which their callers handle. Just after
 * a batch starts (the microtask after its `beforecommit`), the environment's `committed` is that promise.
 */
export function handledBatchStarts<V, K extends Key>(root: RootDatabase<V, K>): RootDatabase<V, K> {
  root.on('beforecommit', () => queueMicrotask(() => void root.committed.then(undefined, () => undefined)))
  return root
}

/**
 * The error a failed LMDB write answers, said plainly: lmdb rejects each write of a failed transaction with
 * "Commit failed" and the cause (the disk full: an I/O error) on a promise of its own, which is handled here so
 * that it never surfaces as an unhandled rejection.
 */
export function commitFailure(error: unknown): Error {
  const { commitError } = (error ?? {}) as { commitError?: Promise<unknown> }
  if (!(commitError instanceof Promise)) return error instanceof Error ? error : new Error(String(error))
  commitError.catch(() => undefined)
  return new Error('the database could not commit the write (is the disk full?)', { cause: error })
}
