/**
 * A least-recently-used map bounded both by entry count and by the summed weight its callers give each entry
 * (for the auth store, the stored size in bytes). Adding past either bound evicts the oldest entries.
 */
export class BoundedCache<K, V> {
  private readonly entries = new Map<K, { value: V; weight: number }>()
  private weight = 0

  constructor(
    private readonly maxEntries: number,
    private readonly maxWeight: number,
  ) {}

  get size(): number {
    return this.entries.size
  }

  has(key: K): boolean {
    return this.entries.has(key)
  }

  /** The value, marked as the most recently used. */
  get(key: K): V | undefined {
    const entry = this.entries.get(key)
    if (!entry) return undefined
    this.entries.delete(key)
    this.entries.set(key, entry)
    return entry.value
  }

  set(key: K, value: V, weight: number): void {
    this.delete(key)
    if (weight > this.maxWeight || this.maxEntries === 0) return
    this.entries.set(key, { value, weight })
    this.weight += weight
    for (const [oldest, entry] of this.entries) {
      if (this.entries.size <= this.maxEntries && this.weight <= this.maxWeight) break
      this.entries.delete(oldest)
      this.weight -= entry.weight
    }
  }

  delete(key: K): void {
    const entry = this.entries.get(key)
    if (!entry) return
    this.entries.delete(key)
    this.weight -= entry.weight
  }

  clear(): void {
    this.entries.clear()
    this.weight = 0
  }
}
