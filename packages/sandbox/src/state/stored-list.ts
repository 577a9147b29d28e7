import { defineTable, type SandboxState, type StateTable } from './sandbox-state'

interface ListItem {
  key: string
  value: unknown
}

/** Every StoredList's items, by `<list name><SEPARATOR><position>`. */
const LIST_ITEMS = defineTable<ListItem>({ name: 'list-items' })

/** Ends a list's name in its items' keys; no name holds it, so no list's range takes in another's items. */
const SEPARATOR = '\u001e'
/** Positions are zero-padded so that the table's key order is the list's order. */
const POSITION_DIGITS = 15

/**
 * An ordered list of keyed values that survives a restart: a Map (insertion order, `set` on an existing key
 * keeps its place) whose every change is written to the sandbox's state. Queues and mailboxes use it: a part
 * that keeps items in order just opens one under a name of its own.
 */
export class StoredList<V> {
  private readonly items = new Map<string, V>()
  private readonly positions = new Map<string, number>()
  private readonly table: StateTable<ListItem>
  private nextPosition = 0

  constructor(
    state: SandboxState,
    /** Unique to this list, e.g. `offline/<phone>/<device>`. */
    private readonly name: string,
  ) {
    this.table = state.open(LIST_ITEMS)
    for (const [storedKey, item] of this.table.entries(name + SEPARATOR)) {
      const position = Number(storedKey.slice(name.length + 1))
      this.items.set(item.key, item.value as V)
      this.positions.set(item.key, position)
      this.nextPosition = position + 1
    }
  }

  get size(): number {
    return this.items.size
  }

  has(key: string): boolean {
    return this.items.has(key)
  }

  get(key: string): V | undefined {
    return this.items.get(key)
  }

  /** Adds at the end, or replaces the value of a key in its place. */
  set(key: string, value: V): this {
    let position = this.positions.get(key)
    if (position === undefined) {
      position = this.nextPosition++
      this.positions.set(key, position)
    }
    this.items.set(key, value)
    this.table.put(this.storedKey(position), { key, value })
    return this
  }

  /** Adds at the end under a key of its own (`#<position>`, unlike any key the list holds) and returns it. */
  push(value: V): string {
    const key = `#${this.nextPosition}`
    this.set(key, value)
    return key
  }

  delete(key: string): boolean {
    const position = this.positions.get(key)
    if (position === undefined) return false
    this.positions.delete(key)
    this.items.delete(key)
    this.table.remove(this.storedKey(position))
    return true
  }

  /** The first key, in order; undefined when empty. */
  firstKey(): string | undefined {
    return this.items.keys().next().value
  }

  keys(): IterableIterator<string> {
    return this.items.keys()
  }

  values(): IterableIterator<V> {
    return this.items.values()
  }

  clear(): void {
    for (const key of [...this.items.keys()]) this.delete(key)
  }

  private storedKey(position: number): string {
    return this.name + SEPARATOR + String(position).padStart(POSITION_DIGITS, '0')
  }
}
