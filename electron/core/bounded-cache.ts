import { LRUCache } from 'lru-cache'

/** How many entries a cache keeps (the least recently used go first) and how long one is trusted. */
export interface CacheLimits {
  max: number
  /** Without one, an entry stays until it is the least recently used of a full cache. */
  ttlMs?: number
}

/**
 * Every in-memory cache of the core with its bound and time to live, stated once. Each one is bounded, so a
 * long-running process with many accounts and many chats keeps a fixed amount of memory for them.
 */
export const CACHE_LIMITS = {
  /**
   * Baileys' message retry counts, one cache per instance kept across its sockets, so a retry loop cannot
   * restart with every reconnect.
   */
  retryCounter: { max: 10_000, ttlMs: 60 * 60_000 },
  /** Group metadata per instance; a change announced by the network drops the group's entry at once. */
  groupMetadata: { max: 1_000, ttlMs: 5 * 60_000 },
  /** Phone number → chat id per instance: a number found on the network is trusted for a day. */
  recipients: { max: 5_000, ttlMs: 24 * 60 * 60_000 },
  /** A number not on the network stays refused this long before it is asked again (it may register). */
  missingRecipientTtlMs: 5 * 60_000,
  /** Network acknowledgements that came before their send started waiting for them. */
  earlyAcks: { max: 10_000, ttlMs: 60_000 },
  /** Message ids whose write may not be committed yet: a copy arriving meanwhile is still a duplicate. */
  messageIdsInFlight: { max: 20_000 },
  /** Incoming calls that can still be rejected (a call rings for about a minute). */
  offeredCalls: { max: 1_000, ttlMs: 5 * 60_000 },
  /** LID ↔ phone pairs whose chats were joined (MessageIntake.onLidPairs): joining again would move nothing. */
  lidPairsJoined: { max: 20_000 },
  /** One-time login codes of the headless server's login URLs, not yet exchanged. */
  loginCodes: { max: 100, ttlMs: 10 * 60_000 },
} as const

/**
 * A bounded LRU cache with a time to live; `now` replaces the clock in tests. The bound is a size (each
 * entry counts 1) rather than lru-cache's `max`, which allocates its arrays for `max` entries up front:
 * several of these caches exist per account, and an idle account would carry ~0.4 MB of empty slots.
 */
export function boundedCache<K extends NonNullable<unknown>, V extends NonNullable<unknown>>(
  limits: CacheLimits,
  now?: () => number,
): LRUCache<K, V> {
  return new LRUCache<K, V>({
    maxSize: limits.max,
    sizeCalculation: () => 1,
    ...(limits.ttlMs ? { ttl: limits.ttlMs } : {}),
    // lru-cache reads the clock at most once a millisecond by default; an injected clock is read every time,
    // and shifted by one because lru-cache takes an entry stored at time 0 for one without a time to live.
    ...(now ? { perf: { now: () => now() + 1 }, ttlResolution: 0 } : {}),
  })
}
