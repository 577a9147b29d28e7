import { useState } from 'react'
import { EmptyState } from '../components/EmptyState'
import { ErrorNotice } from '../components/ErrorNotice'
import { ScreenHeader } from '../components/ScreenHeader'
import { BulkReconnect } from './instances/BulkReconnect'
import { CreateInstanceForm } from './instances/CreateInstanceForm'
import { InstanceCard } from './instances/InstanceCard'
import { InstanceTable } from './instances/InstanceTable'
import { InstanceToolbar, type ListView, useRememberedView } from './instances/InstanceToolbar'
import { arranged, countsInWords, type Sort, type Standing } from './instances/instance-overview'
import { useInstances } from './instances/use-instances'

/** Cards shown before "Show more": hundreds of cards at once would make the screen slow to use. */
const CARD_PAGE = 60

/**
 * The instances with their live state, for three accounts or five hundred: counts per state, search, a state
 * filter, sorting, cards or a dense table, and a bulk reconnect. Create a new one and go straight to linking it.
 */
export function InstancesScreen() {
  const [list, reload] = useInstances()
  const [search, setSearch] = useState('')
  const [standing, setStanding] = useState<Standing | null>(null)
  const [sort, setSort] = useState<Sort>('oldest')
  const [view, setView] = useRememberedView()
  const [shownCards, setShownCards] = useState(CARD_PAGE)
  const [selected, setSelected] = useState<ReadonlySet<string>>(new Set())

  const all = list.status === 'ready' ? list.data : []
  const shown = arranged(all, { search, standing, sort })
  const choose = (change: () => void) => {
    change()
    setShownCards(CARD_PAGE)
  }

  return (
    <section aria-labelledby="instances-title">
      <ScreenHeader
        id="instances-title"
        title="Instances"
        lead="Each instance is one WhatsApp account linked to this computer as a linked device. States update live."
      />
      <CreateInstanceForm />
      {list.status === 'loading' ? <p className="loading">Loading instances…</p> : null}
      {list.status === 'failed' ? (
        <ErrorNotice error={list.error} context="Could not load the instances" />
      ) : null}
      {list.status === 'ready' && all.length === 0 ? (
        <EmptyState title="No instances yet">
          <p>
            Create an instance, then scan its QR code with WhatsApp on your phone (Settings → Linked devices →
            Link a device). Scripts can create them too with <code>create_instance</code>.
          </p>
        </EmptyState>
      ) : null}
      {all.length > 0 ? (
        <>
          <p className="instance-counts" aria-label="Instances by state">
            <strong>
              {all.length} instance{all.length === 1 ? '' : 's'}
            </strong>
            : {countsInWords(all)}
          </p>
          <InstanceToolbar
            search={search}
            onSearch={(value) => choose(() => setSearch(value))}
            standing={standing}
            onStanding={(value) => choose(() => setStanding(value))}
            sort={sort}
            onSort={setSort}
            view={view}
            onView={(value: ListView) => setView(value)}
          />
          <BulkReconnect
            instances={all}
            selected={all.filter((instance) => selected.has(instance.instance_id))}
            onDone={() => void reload()}
          />
          <p className="muted" role="status">
            {shown.length === all.length
              ? `Showing all ${all.length}`
              : `Showing ${shown.length} of ${all.length}`}
          </p>
          {shown.length === 0 ? <p>No instance matches: clear the search or choose another state.</p> : null}
          {view === 'table' && shown.length > 0 ? (
            <InstanceTable instances={shown} selected={selected} onSelect={setSelected} />
          ) : null}
          {view === 'cards' && shown.length > 0 ? (
            <>
              <ul className="cards" aria-label="Instances">
                {shown.slice(0, shownCards).map((instance) => (
                  <InstanceCard
                    key={instance.instance_id}
                    instance={instance}
                    onChanged={() => void reload()}
                  />
                ))}
              </ul>
              {shown.length > shownCards ? (
                <button type="button" onClick={() => setShownCards((count) => count + CARD_PAGE)}>
                  Show {Math.min(CARD_PAGE, shown.length - shownCards)} more ({shown.length - shownCards} not
                  shown)
                </button>
              ) : null}
            </>
          ) : null}
        </>
      ) : null}
    </section>
  )
}
