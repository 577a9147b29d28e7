import type { WASocket } from '@whiskeysockets/baileys'
import { LRUCache } from 'lru-cache'

/**
 * The caches of Baileys' message retry manager (one per socket) that it bounds with lru-cache's `max`, which
 * allocates every slot up front: 512 recent messages and 1,024 base keys, about 70 KB of empty arrays per
 * socket, a quarter of what an idle account costs the heap. Nothing else of the manager is preallocated.
 */
const PREALLOCATED = ['recentMessagesMap', 'baseKeys'] as const

/** What this module reads of one of those caches (lru-cache's own getters and options). */
interface SlotCache {
  max: number
  size: number
  ttl: number
  ttlAutopurge: boolean
  updateAgeOnGet: boolean
  dispose?: (value: unknown, key: string, reason: LRUCache.DisposeReason) => void
}

/**
 * Replaces the retry manager's preallocated caches, still empty, by caches of the same bound, time to live
 * and dispose callback that grow with their entries (a size of one per entry, as `boundedCache` does):
 * the same entries are kept and evicted, without the empty slots.
 */
export function withoutPreallocatedSlots(socket: WASocket): WASocket {
  const manager = socket.messageRetryManager as unknown as Record<string, SlotCache | undefined> | null
  if (!manager) return socket
  for (const field of PREALLOCATED) {
    const cache = manager[field]
    if (!cache || !(cache.max > 0) || cache.size > 0) continue
    manager[field] = new LRUCache<string, NonNullable<unknown>>({
      maxSize: cache.max,
      sizeCalculation: () => 1,
      ...(cache.ttl > 0 ? { ttl: cache.ttl, ttlAutopurge: cache.ttlAutopurge } : {}),
      updateAgeOnGet: cache.updateAgeOnGet,
      ...(cache.dispose ? { dispose: cache.dispose } : {}),
    }) as unknown as SlotCache
  }
  return socket
}
