import { useApi } from '../app/api-context'
import { hrefFor } from '../app/routes'
import { useAction } from '../app/use-action'
import { EmptyState } from '../components/EmptyState'
import { ErrorNotice } from '../components/ErrorNotice'
import { ScreenHeader } from '../components/ScreenHeader'
import { InstanceCard } from './instances/InstanceCard'
import { useInstances } from './instances/use-instances'

/** The instances with their live state; create a new one and go straight to linking it. */
export function InstancesScreen() {
  const api = useApi()
  const [list, reload] = useInstances()
  const creation = useAction()

  const create = async () => {
    const created = await creation.run(() => api.call<{ instance_id: string }>('create_instance'))
    if (created) window.location.hash = hrefFor('instances', created.instance_id, 'link')
  }

  return (
    <section aria-labelledby="instances-title">
      <ScreenHeader
        id="instances-title"
        title="Instances"
        lead="Each instance is one WhatsApp account linked to this computer as a linked device. States update live."
      >
        <button type="button" className="primary" onClick={() => void create()} disabled={!!creation.busy}>
          {creation.busy ? 'Creating…' : 'Create instance'}
        </button>
      </ScreenHeader>
      {creation.error ? <ErrorNotice error={creation.error} context="Could not create an instance" /> : null}
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
