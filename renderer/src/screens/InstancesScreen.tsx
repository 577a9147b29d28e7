import { useState } from 'react'
import type { InstanceList } from '../api/types'
import { useApi } from '../app/api-context'
import { useOperation } from '../app/use-operation'
import { EmptyState } from '../components/EmptyState'
import { ErrorNotice } from '../components/ErrorNotice'
import { InstanceCard } from './instances/InstanceCard'

/** The instances with their state; create a new one. */
export function InstancesScreen() {
  const api = useApi()
  const [list, reload] = useOperation<InstanceList>('instances')
  const [creating, setCreating] = useState(false)
  const [createError, setCreateError] = useState<unknown>(null)

  const create = async () => {
    setCreating(true)
    setCreateError(null)
    try {
      await api.call('create_instance')
      await reload()
    } catch (error) {
      setCreateError(error)
    } finally {
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
        Each instance is one WhatsApp account linked to this computer as a linked device.
      </p>
      {createError ? <ErrorNotice error={createError} context="Could not create an instance" /> : null}
      {list.status === 'loading' ? <p className="loading">Loading instances…</p> : null}
      {list.status === 'failed' ? (
        <ErrorNotice error={list.error} context="Could not load the instances" />
      ) : null}
      {list.status === 'ready' && list.data.instances.length === 0 ? (
        <EmptyState title="No instances yet">
          <p>
            Create an instance, then scan its QR code with WhatsApp on your phone (Settings → Linked devices →
            Link a device). Scripts can create them too with <code>create_instance</code>.
          </p>
        </EmptyState>
      ) : null}
      {list.status === 'ready' && list.data.instances.length > 0 ? (
        <ul className="cards" aria-label="Instances">
          {list.data.instances.map((instance) => (
            <InstanceCard key={instance.instance_id} instance={instance} />
          ))}
        </ul>
      ) : null}
    </section>
  )
}
