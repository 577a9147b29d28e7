import { useMemo, useState } from 'react'
import type { LoggedEventView } from '../../api/types'
import { useFeed, useFeedSnapshot } from '../../app/feed-context'
import { useAction } from '../../app/use-action'
import { EmptyState } from '../../components/EmptyState'
import { ErrorNotice } from '../../components/ErrorNotice'
import { ScreenHeader } from '../../components/ScreenHeader'
import { VirtualList } from '../../components/VirtualList'
import { EventDetail } from './EventDetail'
import { NO_FILTER, filterAttempts, filterEvents, type LogFilter } from './event-filter'
import { LogFilters } from './LogFilters'
import { messageSummary } from './message-summary'
import './EventsScreen.css'

const ROW_HEIGHT = 36

function clock(seconds: string): string {
  return new Date(Number(seconds) * 1000).toLocaleTimeString()
}

const CONNECTION_WORDS = {
  connecting: 'Connecting to the live stream…',
  live: 'Live',
  reconnecting: 'Stream interrupted: reconnecting and catching up…',
} as const

/** The event log and the delivery log, live, filtered, searchable, with payloads and attempts. */
export function EventsScreen() {
  const feed = useFeed()
  const snapshot = useFeedSnapshot()
  const [tab, setTab] = useState<'events' | 'deliveries'>('events')
  const [filter, setFilter] = useState<LogFilter>(NO_FILTER)
  const [selectedId, setSelectedId] = useState<string | null>(null)
  const older = useAction()
  const events = useMemo(() => filterEvents(snapshot.events, filter), [snapshot.events, filter])
  const attempts = useMemo(() => filterAttempts(snapshot.deliveries, filter), [snapshot.deliveries, filter])
  const selectedIndex = selectedId === null ? -1 : events.findIndex((event) => event.event_id === selectedId)
  const selected = selectedIndex >= 0 ? events[selectedIndex] : undefined
  const names = useMemo(() => instanceNames(snapshot.events), [snapshot.events])
  const instanceNamed = (instanceId: string) => names.get(instanceId) ?? `Instance ${instanceId.slice(0, 6)}…`

  return (
    <section aria-labelledby="events-title">
      <ScreenHeader
        id="events-title"
        title="Events"
        lead="Every event of every instance as it happens, and each webhook delivery attempt."
      >
        <span className={`badge badge-${snapshot.connection === 'live' ? 'ok' : 'wait'}`} role="status">
          {CONNECTION_WORDS[snapshot.connection]}
        </span>
      </ScreenHeader>
      {snapshot.problem ? <ErrorNotice error={new Error(snapshot.problem)} context="Event log" /> : null}
      <div className="tabs" role="group" aria-label="Log">
        <button type="button" aria-pressed={tab === 'events'} onClick={() => setTab('events')}>
          Event log ({snapshot.events.length})
        </button>
        <button type="button" aria-pressed={tab === 'deliveries'} onClick={() => setTab('deliveries')}>
          Delivery log ({snapshot.deliveries.length})
        </button>
      </div>
      <LogFilters filter={{ ...filter }} onChange={setFilter} kind={tab} />
      {tab === 'events' ? (
        snapshot.events.length === 0 ? (
          <EmptyState title="No events yet">
            <p>
              Events appear here as they happen: create an instance and link it, or send a message. To receive
              them in your own program, set a webhook on the Webhooks screen.
            </p>
          </EmptyState>
        ) : (
          <div className="log-layout">
            <div className="stack">
              <p className="hint" aria-live="polite">
                Showing {events.length} of {snapshot.events.length} events, newest first.
              </p>
              <VirtualList
                label="Events"
                count={events.length}
                rowHeight={ROW_HEIGHT}
                rowId={(index) => `event-${events[index]?.event_id ?? index}`}
                selected={selectedIndex >= 0 ? selectedIndex : null}
                onSelect={(index) => setSelectedId(events[index]?.event_id ?? null)}
                renderRow={(index) => {
                  const event = events[index]!
                  return (
                    <>
                      <span className="cell-time">{clock(event.timestamp)}</span>
                      <span className="cell-name">{event.event}</span>
                      <span className="cell-summary">
                        <span className="cell-instance">{instanceNamed(event.instance_id)}</span>{' '}
                        {summary(event.data)}
                      </span>
                      <span className={`cell-delivery delivery-${event.delivery.status}`}>
                        {event.delivery.status}
                      </span>
                    </>
                  )
                }}
              />
              {snapshot.hasOlder ? (
                <button type="button" onClick={() => void older.run(() => feed.loadOlder())}>
                  Load older events
                </button>
              ) : null}
              {older.error ? <ErrorNotice error={older.error} context="Older events" /> : null}
            </div>
            {selected ? (
              <EventDetail key={selected.event_id} event={selected} />
            ) : (
              <p className="hint event-detail">Choose an event to see its payload and delivery attempts.</p>
            )}
          </div>
        )
      ) : attempts.length === 0 && snapshot.deliveries.length === 0 ? (
        <EmptyState title="No deliveries yet">
          <p>
            Attempts appear here once an instance has a webhook: set one on the Webhooks screen and send a
            test event.
          </p>
        </EmptyState>
      ) : (
        <div className="stack">
          <p className="hint" aria-live="polite">
            Showing {attempts.length} of {snapshot.deliveries.length} attempts, newest first.
          </p>
          <VirtualList
            label="Delivery attempts"
            count={attempts.length}
            rowHeight={ROW_HEIGHT}
            rowId={(index) => `delivery-${attempts[index]?.delivery_id ?? index}`}
            selected={null}
            onSelect={(index) => {
              const attempt = attempts[index]
              if (!attempt) return
              setSelectedId(attempt.event_id)
              setFilter(NO_FILTER)
              setTab('events')
            }}
            renderRow={(index) => {
              const attempt = attempts[index]!
              return (
                <>
                  <span className="cell-time">{new Date(attempt.attempted_at).toLocaleTimeString()}</span>
                  <span className="cell-name">{attempt.event}</span>
                  <span className="cell-summary">
                    <span className="cell-instance">{instanceNamed(attempt.instance_id)}</span> to{' '}
                    {attempt.url} #{attempt.attempt}{' '}
                    {attempt.status_code === null
                      ? (attempt.error ?? 'no answer')
                      : `HTTP ${attempt.status_code}`}{' '}
                    in {attempt.latency_ms.toFixed(1)} ms
                  </span>
                  <span className={`cell-delivery delivery-${attempt.outcome}`}>{attempt.outcome}</span>
                </>
              )
            }}
          />
        </div>
      )}
    </section>
  )
}

/** Each instance's name as its newest event gave it (the envelope's instance_name), for the rows. */
function instanceNames(events: readonly LoggedEventView[]): Map<string, string> {
  const names = new Map<string, string>()
  for (const event of events)
    if (event.instance_name && !names.has(event.instance_id))
      names.set(event.instance_id, event.instance_name)
  return names
}

/** One line about an event's data: a message's content and sender, else the state, status or reason. */
function summary(data: Record<string, unknown>): string {
  const message = messageSummary(data)
  if (message !== undefined) {
    return [message, data.sender_phone].filter((part) => typeof part === 'string' && part).join(' · ')
  }
  const parts = [
    'state',
    'presence',
    'text',
    'caption',
    'status',
    'sender_phone',
    'from_phone',
    'participant_phone',
    'reason',
    'message',
  ]
    .map((key) => data[key])
    .filter((value): value is string => typeof value === 'string' && value !== '')
  return parts.slice(0, 2).join(' · ')
}
