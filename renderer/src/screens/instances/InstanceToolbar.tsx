import { useState } from 'react'
import { SORTS, STANDINGS, type Sort, type Standing, standingInWords } from './instance-overview'
import './InstanceToolbar.css'

export type ListView = 'cards' | 'table'

const VIEW_KEY = 'linkdesk.instances.view'

/** Cards or the table, as the operator last chose (kept in this window's storage). */
export function useRememberedView(): [ListView, (view: ListView) => void] {
  const [view, setView] = useState<ListView>(() =>
    window.localStorage.getItem(VIEW_KEY) === 'table' ? 'table' : 'cards',
  )
  return [
    view,
    (next) => {
      window.localStorage.setItem(VIEW_KEY, next)
      setView(next)
    },
  ]
}

interface InstanceToolbarProps {
  search: string
  onSearch(search: string): void
  standing: Standing | null
  onStanding(standing: Standing | null): void
  sort: Sort
  onSort(sort: Sort): void
  view: ListView
  onView(view: ListView): void
}

/** Search, the state filter, the order and the view of the instance list. */
export function InstanceToolbar(props: InstanceToolbarProps) {
  return (
    <div className="instance-toolbar" role="search" aria-label="Find instances">
      <div className="field">
        <label htmlFor="instance-search">Search by name, number or id</label>
        <input
          id="instance-search"
          type="search"
          value={props.search}
          onChange={(event) => props.onSearch(event.target.value)}
        />
      </div>
      <div className="field">
        <label htmlFor="instance-standing">State</label>
        <select
          id="instance-standing"
          value={props.standing ?? ''}
          onChange={(event) => props.onStanding((event.target.value || null) as Standing | null)}
        >
          <option value="">All states</option>
          {STANDINGS.map((standing) => (
            <option key={standing} value={standing}>
              {standingInWords(standing)}
            </option>
          ))}
        </select>
      </div>
      <div className="field">
        <label htmlFor="instance-sort">Sort by</label>
        <select
          id="instance-sort"
          value={props.sort}
          onChange={(event) => props.onSort(event.target.value as Sort)}
        >
          {Object.entries(SORTS).map(([sort, words]) => (
            <option key={sort} value={sort}>
              {words}
            </option>
          ))}
        </select>
      </div>
      <div className="view-toggle" role="group" aria-label="View">
        {(['cards', 'table'] as const).map((view) => (
          <button
            key={view}
            type="button"
            aria-pressed={props.view === view}
            onClick={() => props.onView(view)}
          >
            {view === 'cards' ? 'Cards' : 'Table'}
          </button>
        ))}
      </div>
    </div>
  )
}
