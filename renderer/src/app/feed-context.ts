import { createContext, useContext, useEffect, useRef, useSyncExternalStore } from 'react'
import type { EventFeed, FeedSnapshot } from '../api/event-feed'
import type { EventEnvelopeView } from '../api/types'

export const FeedContext = createContext<EventFeed | null>(null)

/** The window's event feed. */
export function useFeed(): EventFeed {
  const feed = useContext(FeedContext)
  if (!feed) throw new Error('useFeed is used outside the logged-in app')
  return feed
}

/** The feed's current events and attempts; re-renders once per burst of live items. */
export function useFeedSnapshot(): FeedSnapshot {
  const feed = useFeed()
  return useSyncExternalStore(feed.subscribe, feed.snapshot)
}

/** Calls `listener` with each live event (the latest `listener`, without re-subscribing). */
export function useLiveEvents(listener: (event: EventEnvelopeView) => void): void {
  const feed = useFeed()
  const latest = useRef(listener)
  useEffect(() => {
    latest.current = listener
  })
  useEffect(() => feed.onEnvelope((event) => latest.current(event)), [feed])
}
