import type { Key, RangeOptions } from 'lmdb'
import { ID_MAX, idFloorAt } from '../../contract/event-id'
import { type Page, type PageQuery, SCAN_LIMIT } from '../event-store'

/** LMDB range options for ids between since and until, after the cursor, with keys made by `key`. */
export function idRange(query: PageQuery, key: (id: string) => Key): RangeOptions {
  const low = query.since !== undefined ? idFloorAt(query.since * 1000) : ''
  const high = query.until !== undefined ? idFloorAt((query.until + 1) * 1000) : ID_MAX
  if (query.order === 'asc') {
    const fromCursor = query.cursor !== undefined && query.cursor >= low
    return {
      start: key(fromCursor ? (query.cursor as string) : low),
      end: key(high),
      exclusiveStart: fromCursor,
    }
  }
  const fromCursor = query.cursor !== undefined && query.cursor < high
  return {
    start: key(fromCursor ? (query.cursor as string) : high),
    end: key(low),
    reverse: true,
    exclusiveStart: true,
    inclusiveEnd: true,
  }
}

/**
 * Walks ids in order and keeps those `load` returns (it returns undefined for ones filtered out), up to the
 * limit; stops after SCAN_LIMIT ids and then hands back a cursor so the caller can continue.
 */
export function collectPage<T>(
  ids: Iterable<string>,
  limit: number,
  load: (id: string) => T | undefined,
): Page<T> {
  const items: T[] = []
  let scanned = 0
  for (const id of ids) {
    scanned += 1
    const item = load(id)
    if (item !== undefined) items.push(item)
    if (items.length >= limit) return { items, nextCursor: id }
    if (scanned >= SCAN_LIMIT) return { items, nextCursor: id }
  }
  return { items, nextCursor: null }
}
