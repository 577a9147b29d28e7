import { mkdirSync, rmSync } from 'node:fs'
import { open, type Database, type RootDatabase } from 'lmdb'
import type { Logger } from '../logger'

/**
 * How one kind of record is kept. Live values (a libsignal session, say) name a codec to and from plain data
 * (objects, arrays, strings, numbers, booleans, Buffers); plain records need none.
 */
export interface TableSpec<T> {
  /** Unique among the sandbox's tables; it names the table on disk. */
  name: string
  encode?: (value: T) => unknown
  decode?: (stored: unknown) => T
}

/** Declares a kind of record a part of the sandbox keeps; the part opens it from the network's state. */
export function defineTable<T>(spec: TableSpec<T>): TableSpec<T> {
  return spec
}

/**
 * One kind of record, by string key. Reads are synchronous and see every write at once; writes reach the disk
 * in call order, so a process killed at any moment leaves the state of some earlier moment: records are whole,
 * and a record written after another is never kept without it.
 */
export interface StateTable<T> {
  get(key: string): T | undefined
  /** Every record whose key starts with `prefix` (all of them without one), in key order. */
  entries(prefix?: string): Array<[string, T]>
  put(key: string, value: T): void
  remove(key: string): void
}

/** Where the sandbox keeps its state: in memory for the life of the process, or in a data directory. */
export interface SandboxState {
  open<T>(spec: TableSpec<T>): StateTable<T>
  /** Resolves once every write made so far is on disk (at once in memory): what is answered is kept. */
  flushed(): Promise<void>
  close(): Promise<void>
}

/** Live values in Maps: nothing to encode, nothing survives the process. Tests and benchmarks use this. */
export function memoryState(): SandboxState {
  const tables = new Map<string, Map<string, unknown>>()
  return {
    open<T>(spec: TableSpec<T>): StateTable<T> {
      let records = tables.get(spec.name) as Map<string, T> | undefined
      if (!records) {
        records = new Map()
        tables.set(spec.name, records as Map<string, unknown>)
      }
      return mapTable(records)
    },
    flushed: async () => undefined,
    close: async () => {
      for (const records of tables.values()) records.clear()
    },
  }
}

function byKey([a]: [string, unknown], [b]: [string, unknown]): number {
  return a < b ? -1 : a > b ? 1 : 0
}

function mapTable<T>(records: Map<string, T>): StateTable<T> {
  return {
    get: (key) => records.get(key),
    entries: (prefix = '') => [...records.entries()].filter(([key]) => key.startsWith(prefix)).sort(byKey),
    put: (key, value) => void records.set(key, value),
    remove: (key) => void records.delete(key),
  }
}

/** Sorts after every character a key uses: the exclusive end of a prefix's range. */
const AFTER_PREFIX = '\uffff'

/**
 * The sandbox's state in an LMDB environment of its own in `dir` (through the `lmdb` package the app's stores
 * use): every table is a named sub-database, and the writes of one event turn commit in one transaction.
 */
export function openSandboxState(dir: string, logger: Logger): SandboxState {
  mkdirSync(dir, { recursive: true, mode: 0o700 })
  const root: RootDatabase = open({ path: dir, maxDbs: 64, compression: false, encoding: 'msgpack' })
  const opened = new Map<string, Database<unknown, string>>()
  let reported = false
  const failed = (error: unknown): void => {
    // A write that did not commit leaves the disk behind the live network: say so, once and loudly.
    if (!reported) logger.error({ err: error }, 'sandbox state could not be written')
    reported = true
  }
  return {
    open<T>(spec: TableSpec<T>): StateTable<T> {
      let db = opened.get(spec.name)
      if (!db) {
        db = root.openDB<unknown, string>({ name: spec.name, encoding: 'msgpack' })
        opened.set(spec.name, db)
      }
      return lmdbTable(db, spec, failed)
    },
    async flushed() {
      await root.flushed
    },
    async close() {
      await root.flushed
      await root.close()
    },
  }
}

/** A write not committed yet: the live value, or null for a removal. */
type Pending<T> = { value: T | null }

function lmdbTable<T>(
  db: Database<unknown, string>,
  spec: TableSpec<T>,
  failed: (error: unknown) => void,
): StateTable<T> {
  const encode = spec.encode ?? ((value: T) => value)
  const decode = spec.decode ?? ((stored: unknown) => stored as T)
  // lmdb's reads see only committed writes; the parts read back what they just wrote (libsignal loads the
  // session it stored a moment ago), so writes stay readable here until they commit.
  const pending = new Map<string, Pending<T>>()
  const track = (key: string, write: Pending<T>, committed: Promise<unknown>): void => {
    pending.set(key, write)
    committed.catch(failed).finally(() => {
      if (pending.get(key) === write) pending.delete(key)
    })
  }
  return {
    get(key) {
      const write = pending.get(key)
      if (write) return write.value ?? undefined
      const stored = db.get(key)
      return stored === undefined ? undefined : decode(stored)
    },
    entries(prefix = '') {
      const range = db.getRange(prefix ? { start: prefix, end: prefix + AFTER_PREFIX } : {})
      const found = new Map<string, T>()
      for (const { key, value } of range) found.set(key, decode(value))
      for (const [key, write] of pending) {
        if (!key.startsWith(prefix)) continue
        if (write.value === null) found.delete(key)
        else found.set(key, write.value)
      }
      return [...found.entries()].sort(byKey)
    },
    put(key, value) {
      track(key, { value }, db.put(key, encode(value)))
    },
    remove(key) {
      track(key, { value: null }, db.remove(key))
    },
  }
}

/** Deletes a data directory's sandbox state, so the next start is a fresh network. */
export function resetSandboxState(dir: string): void {
  rmSync(dir, { recursive: true, force: true })
}
