import { useCallback, useEffect, useRef, useState } from 'react'
import { useApi } from '../../app/api-context'
import type { ApiClient } from '../../api/client'

/** A list read a page at a time: the items loaded so far and the cursor of the next page (null: all loaded). */
export type PagedList<T> =
  | { status: 'loading' }
  | { status: 'ready'; items: T[]; next: string | null }
  | { status: 'failed'; error: unknown }

/** Where an item goes in a list ordered by `before`: it replaces the item with its key, in its new place. */
export function placed<T>(
  items: readonly T[],
  item: T,
  keyOf: (item: T) => string,
  before: (a: T, b: T) => boolean,
  more: boolean,
): T[] {
  const rest = items.filter((other) => keyOf(other) !== keyOf(item))
  const at = rest.findIndex((other) => before(item, other))
  // Past the last loaded item of a list with more pages: it belongs to a page not loaded yet.
  if (at === -1) return more ? rest : [...rest, item]
  return [...rest.slice(0, at), item, ...rest.slice(at)]
}

/**
 * Reads the first page of a list operation when the component mounts (and when `key` changes); `loadMore`
 * appends the next page; `update` changes the loaded items in place (after an event), with no read.
 */
export function usePagedList<T>(
  read: (api: ApiClient, cursor: string | null) => Promise<{ items: T[]; next_cursor: string | null }>,
  key: string,
): {
  list: PagedList<T>
  loadMore: () => Promise<void>
  update: (change: (items: T[], more: boolean) => T[]) => void
} {
  const api = useApi()
  const [list, setList] = useState<PagedList<T>>({ status: 'loading' })
  const latest = useRef(read)
  latest.current = read
  const current = useRef(0)
  const load = useCallback(
    async (cursor: string | null, loaded: T[]) => {
      const ticket = ++current.current
      try {
        const page = await latest.current(api, cursor)
        if (ticket === current.current)
          setList({ status: 'ready', items: [...loaded, ...page.items], next: page.next_cursor })
      } catch (error) {
        if (ticket === current.current) setList({ status: 'failed', error })
      }
    },
    [api],
  )
  useEffect(() => {
    setList({ status: 'loading' })
    void load(null, [])
  }, [load, key])
  const loadMore = useCallback(async () => {
    if (list.status === 'ready' && list.next) await load(list.next, list.items)
  }, [list, load])
  const update = useCallback((change: (items: T[], more: boolean) => T[]) => {
    setList((now) => (now.status === 'ready' ? { ...now, items: change(now.items, now.next !== null) } : now))
  }, [])
  return { list, loadMore, update }
}
