/**
 * A small TTL map with the shape of Baileys' CacheStore, used as each instance's message retry counter: one
 * per instance, kept across its sockets so a retry loop cannot restart with every reconnect.
 */
export class RetryCounterCache {
  private readonly entries = new Map<string, { value: unknown; expiresAt: number }>()

  constructor(
    private readonly ttlMs = 60 * 60 * 1000,
    private readonly maxEntries = 10_000,
    private readonly now: () => number = Date.now,
  ) {}

  get<T>(key: string): T | undefined {
    const entry = this.entries.get(key)
    if (!entry) return undefined
    if (entry.expiresAt <= this.now()) {
      this.entries.delete(key)
      return undefined
    }
    return entry.value as T
  }

  set<T>(key: string, value: T): void {
    this.entries.delete(key)
    this.entries.set(key, { value, expiresAt: this.now() + this.ttlMs })
    if (this.entries.size > this.maxEntries) {
      const oldest = this.entries.keys().next().value
      if (oldest !== undefined) this.entries.delete(oldest)
    }
  }

  del(key: string): void {
    this.entries.delete(key)
  }

  flushAll(): void {
    this.entries.clear()
  }
}
