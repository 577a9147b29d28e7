import { EVENT_NAMES } from '../../api/event-catalogue'
import { InstanceSelect } from '../../components/InstanceSelect'
import type { LogFilter } from './event-filter'
import './LogFilters.css'

const OUTCOMES = {
  events: ['pending', 'delivered', 'failed', 'skipped'],
  deliveries: ['delivered', 'retrying', 'failed'],
} as const

/** Filter by instance, event name, delivery outcome, and free text. */
export function LogFilters({
  filter,
  onChange,
  kind,
}: {
  filter: LogFilter
  onChange(filter: LogFilter): void
  kind: 'events' | 'deliveries'
}) {
  return (
    <div className="filters" role="search" aria-label={`Filter the ${kind}`}>
      <InstanceSelect
        allowAll
        value={filter.instanceId}
        onChange={(instanceId) => onChange({ ...filter, instanceId })}
      />
      <div className="field">
        <label htmlFor="filter-event">Event</label>
        <select
          id="filter-event"
          value={filter.event}
          onChange={(event) => onChange({ ...filter, event: event.target.value })}
        >
          <option value="">All events</option>
          {EVENT_NAMES.map((name) => (
            <option key={name}>{name}</option>
          ))}
        </select>
      </div>
      <div className="field">
        <label htmlFor="filter-outcome">{kind === 'events' ? 'Delivery' : 'Outcome'}</label>
        <select
          id="filter-outcome"
          value={filter.outcome}
          onChange={(event) => onChange({ ...filter, outcome: event.target.value })}
        >
          <option value="">Any</option>
          {OUTCOMES[kind].map((outcome) => (
            <option key={outcome}>{outcome}</option>
          ))}
        </select>
      </div>
      <div className="field">
        <label htmlFor="filter-search">Search</label>
        <input
          id="filter-search"
          type="search"
          value={filter.search}
          placeholder="Text, number, id…"
          onChange={(event) => onChange({ ...filter, search: event.target.value })}
        />
      </div>
    </div>
  )
}
