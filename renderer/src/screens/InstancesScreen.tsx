import { useState } from 'react'
import { useApi } from '../app/api-context'
import { hrefFor } from '../app/routes'
import { EmptyState } from '../components/EmptyState'
import { ErrorNotice } from '../components/ErrorNotice'
import { InstanceCard } from './instances/InstanceCard'
import { useInstances } from './instances/use-instances'

/** The instances with their live state; create a new one and go straight to linking it. */
export function InstancesScreen() {
  const api = useApi()
  const [list, reload] = useInstances()
  const [creating, setCreating] = useState(false)
  const [createError, setCreateError] = useState<unknown>(null)

  const create = async () => {
    setCreating(true)
    setCreateError(null)
    try {
      const created = await api.call<{ instance_id: string }>('create_instance')
      window.location.hash = hrefFor('instances', created.instance_id, 'link')
    } catch (error) {
      setCreateError(error)
      setCreating(false)
    }
  }

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
        Each instance is one WhatsApp account linked to this computer as a linked device. States update live.
      </p>
      {createError ? <ErrorNotice error={createError} context="Could not create an instance" /> : null}
      {list.status === 'loading' ? <p className="loading">Loading instances…</p> : null}
      {list.status === 'failed' ? (
        <ErrorNotice error={list.error} context="Could not load the instances" />
      ) : null}
      {list.status === 'ready' && list.data.length === 0 ? (
        <EmptyState title="No instances yet">
          <p>
            Create an instance, then scan its QR code with WhatsApp on your phone (Settings → Linked devices →
            Link a device). Scripts can create them too with <code>create_instance</code>.
          </p>
        </EmptyState>
      ) : null}
      {list.status === 'ready' && list.data.length > 0 ? (
        <ul className="cards" aria-label="Instances">
          {list.data.map((instance) => (
            <InstanceCard key={instance.instance_id} instance={instance} onChanged={() => void reload()} />
          ))}
        </ul>
      ) : null}
    </section>
  )
}
