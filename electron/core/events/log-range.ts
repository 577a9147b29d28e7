import type { Key, RangeOptions } from 'lmdb'
import { ID_MAX, idFloorAt } from './event-id'

/** One page of a time-ordered log: which ids, in which direction, from where. */
export interface PageQuery {
  /** Unix seconds, inclusive. */
  since?: number
  /** Unix seconds, inclusive. */
  until?: number
  /** The last id of the previous page; the page starts after it. */
  cursor?: string
  limit: number
  order: 'asc' | 'desc'
}

/** A page of results and the cursor of the next one (null at the end). */
export interface Page<T> {
  items: T[]
  nextCursor: string | null
}

/** Longest scan behind one page, so that a rare filter cannot make one request read the whole log. */
export const SCAN_LIMIT = 20_000

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
