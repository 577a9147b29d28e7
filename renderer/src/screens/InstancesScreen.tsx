import { useCallback, useEffect, useState } from 'react'
import { ApiError } from '../api/api-error'
import type { CreatedInstance, InstanceList, InstanceSummary } from '../api/types'
import { useApi } from '../app/api-context'
import { EmptyState } from '../components/EmptyState'
import { ErrorNotice } from '../components/ErrorNotice'
import { createdHere } from './instances/created-here'
import { InstanceCard } from './instances/InstanceCard'

type Listing =
  | { kind: 'loading' }
  | { kind: 'listed'; instances: InstanceSummary[] }
  /** The server has no list operation: only the instances created in this window are known. */
  | { kind: 'unlisted' }
  | { kind: 'failed'; error: unknown }

/** The instances with their state; create a new one. */
export function InstancesScreen() {
  const api = useApi()
  const [listing, setListing] = useState<Listing>({ kind: 'loading' })
  const [createdInWindow, setCreatedInWindow] = useState<InstanceSummary[]>(createdHere.list)
  const [creating, setCreating] = useState(false)
  const [createError, setCreateError] = useState<unknown>(null)

  const reload = useCallback(async () => {
    try {
      const answer = await api.call<InstanceList>('instances')
      setListing({ kind: 'listed', instances: answer.instances })
    } catch (error) {
      setListing(
        error instanceof ApiError && error.isMissingOperation
          ? { kind: 'unlisted' }
          : { kind: 'failed', error },
      )
    }
  }, [api])
  useEffect(() => {
    void reload()
  }, [reload])

  const create = async () => {
    setCreating(true)
    setCreateError(null)
    try {
      const answer = await api.call<CreatedInstance>('create_instance')
      setCreatedInWindow(createdHere.add({ instance_id: answer.instance_id, state: 'idle' }))
      await reload()
    } catch (error) {
      setCreateError(error)
    } finally {
      setCreating(false)
    }
  }

  const instances = listing.kind === 'listed' ? listing.instances : createdInWindow
  return (
    <section aria-labelledby="instances-title">
      <div className="screen-header">
        <h1 id="instances-title" tabIndex={-1}>
          Instances
        </h1>
        <button type="button" className="primary" onClick={() => void create()} disabled={creating}>
          {creating ? 'Creating…' : 'Create instance'}
        </button>
      </div>
      <p className="lead">
        Each instance is one WhatsApp account linked to this computer as a linked device.
      </p>
      {createError ? <ErrorNotice error={createError} context="Could not create an instance" /> : null}
      {listing.kind === 'loading' ? <p className="loading">Loading instances…</p> : null}
      {listing.kind === 'failed' ? (
        <ErrorNotice error={listing.error} context="Could not load the instances" />
      ) : null}
      {listing.kind === 'unlisted' ? (
        <p className="notice" role="status">
          This server cannot list instances yet: only the ones created in this window are shown.
        </p>
      ) : null}
      {listing.kind !== 'loading' && listing.kind !== 'failed' && instances.length === 0 ? (
        <EmptyState title="No instances yet">
          <p>
            Create an instance, then scan its QR code with WhatsApp on your phone (Settings → Linked devices →
            Link a device). Scripts can create them too with <code>create_instance</code>.
          </p>
        </EmptyState>
      ) : null}
      {instances.length > 0 ? (
        <ul className="cards" aria-label="Instances">
          {instances.map((instance) => (
            <InstanceCard key={instance.instance_id} instance={instance} />
          ))}
        </ul>
      ) : null}
    </section>
  )
}
