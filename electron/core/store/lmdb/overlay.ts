import { commitFailure, type Database } from './database'

type KeyPart = string | number
type Key = KeyPart[]

/** An entry as a read sees it: a key and its value. */
export interface Entry<K, V> {
  key: K
  value: V
}

/** Orders keys as LMDB does for these parts: element by element, numbers before strings, shorter first. */
export function compareKeys(a: readonly KeyPart[], b: readonly KeyPart[]): number {
  for (let i = 0; i < Math.min(a.length, b.length); i++) {
    const x = a[i] as KeyPart
    const y = b[i] as KeyPart
    if (x === y) continue
    if (typeof x !== typeof y) return typeof x === 'number' ? -1 : 1
    return x < y ? -1 : 1
  }
  return a.length - b.length
}

const joined = (key: readonly KeyPart[]) => key.join('\u0000')

/**
 * Writes to one sub-database that reads see at once: a put or remove is queued and overlaid on what is
 * committed until it commits. Its promise is handled here: a caller queues it in the same turn as a write it
 * awaits (LMDB commits a turn's writes in one transaction), which answers for both. Ranges merge the two, so an index read
 * right after a write finds it.
 */
export class Overlay<K extends Key, V> {
  private readonly pending = new Map<string, { key: K; value: V | undefined }>()

  constructor(
    private readonly db: Database<V, K>,
    /** Called when a queued write fails (the store refuses writes until those after it have settled). */
    private readonly failed: (error: unknown) => void,
  ) {}

  get(key: K): V | undefined {
    const queued = this.pending.get(joined(key))
    return queued ? queued.value : this.db.get(key)
  }

  put(key: K, value: V): Promise<boolean> {
    return this.queue(key, value, this.db.put(key, value))
  }

  remove(key: K): Promise<boolean> {
    return this.queue(key, undefined, this.db.remove(key))
  }

  /**
   * Up to `limit` entries whose key starts with `prefix`, in key order (or reversed), strictly after `from`
   * in that order when given.
   */
  range(prefix: K, options: { reverse?: boolean; from?: K; limit: number }): Array<Entry<K, V>> {
    const { reverse = false, from, limit } = options
    const ahead = (key: K) => !from || (reverse ? compareKeys(key, from) < 0 : compareKeys(key, from) > 0)
    const queued = [...this.pending.values()].filter(
      ({ key }) => key.length > prefix.length && prefix.every((part, i) => key[i] === part) && ahead(key),
    )
    const high = [...prefix, '\uffff'] as K
    const bounds = reverse
      ? { start: from ?? high, end: prefix, reverse: true }
      : { start: from ?? prefix, end: high }
    const found = new Map<string, Entry<K, V>>()
    for (const { key, value } of this.db.getRange({ ...bounds, limit: limit + queued.length + 1 })) {
      if (ahead(key)) found.set(joined(key), { key, value })
    }
    for (const { key, value } of queued) {
      if (value === undefined) found.delete(joined(key))
      else found.set(joined(key), { key, value })
    }
    const sorted = [...found.values()].sort((a, b) => compareKeys(a.key, b.key))
    if (reverse) sorted.reverse()
    return sorted.slice(0, limit)
  }

  /** Removes every key under `prefix`, committed or queued (inside the caller's batch). */
  removeAll(prefix: Key): void {
    const under = (key: Key) => prefix.every((part, i) => key[i] === part)
    for (const [name, { key }] of this.pending) {
      if (!under(key)) continue
      this.pending.delete(name)
      void this.db.remove(key)
    }
    const high = [...prefix, '\uffff'] as K
    for (const key of this.db.getKeys({ start: prefix as K, end: high })) void this.db.remove(key)
  }

  private queue(key: K, value: V | undefined, written: Promise<boolean>): Promise<boolean> {
    const name = joined(key)
    const entry = { key, value }
    this.pending.set(name, entry)
    const settle = () => {
      if (this.pending.get(name) === entry) this.pending.delete(name)
    }
    // A failed write is no longer seen: what is committed holds again.
    written.then(settle, (error: unknown) => {
      settle()
      this.failed(commitFailure(error))
    })
    return written
  }
}
