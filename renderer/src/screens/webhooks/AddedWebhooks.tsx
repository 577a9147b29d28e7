import { type FormEvent, useState } from 'react'
import type { AddedWebhookView } from '../../api/types'
import { useApi } from '../../app/api-context'
import { useAction } from '../../app/use-action'
import { useOperation } from '../../app/use-operation'
import { ErrorNotice } from '../../components/ErrorNotice'
import { AddedWebhookItem, filterOf } from './AddedWebhookItem'
import { ConfirmTargetRemoval, FilterScopeAndSubmit } from './TargetFormParts'
import './AddedWebhooks.css'

interface WebhookList {
  webhooks: AddedWebhookView[]
}

/**
 * The webhooks beside the instance's own: the instance's added ones and the global ones (for every instance),
 * each with its health, attempts, edit, switch, secret rotation, redelivery and removal; a form adds one.
 */
export function AddedWebhooks({ instanceId }: { instanceId: string }) {
  const api = useApi()
  const [lists, reload] = useOperation(
    async (client) => ({
      instance: instanceId
        ? (await client.call<WebhookList>('webhooks', { instance_id: instanceId })).webhooks
        : [],
      global: (await client.call<WebhookList>('webhooks', {})).webhooks,
    }),
    `added-webhooks/${instanceId}`,
  )
  const [url, setUrl] = useState('')
  const [events, setEvents] = useState('')
  const [global, setGlobal] = useState(false)
  const [removing, setRemoving] = useState<AddedWebhookView | null>(null)
  const { error, run } = useAction()

  const add = async (event: FormEvent) => {
    event.preventDefault()
    const added = await run(() =>
      api.call('add_webhook', {
        ...(global ? {} : { instance_id: instanceId }),
        url,
        ...(filterOf(events).length > 0 ? { events: filterOf(events) } : {}),
      }),
    )
    if (!added) return
    setUrl('')
    setEvents('')
    void reload()
  }
  const remove = async (webhook: AddedWebhookView) => {
    setRemoving(null)
    await run(() => api.call('remove_webhook', { webhook_id: webhook.webhook_id }))
    void reload()
  }
  const table = (label: string, webhooks: AddedWebhookView[]) => (
    <ul aria-label={label} className="stack added-webhooks">
      {webhooks.map((webhook) => (
        <AddedWebhookItem
          key={webhook.webhook_id}
          webhook={webhook}
          instanceId={instanceId}
          onChanged={() => void reload()}
          onRemove={() => setRemoving(webhook)}
        />
      ))}
    </ul>
  )
  const ready = lists.status === 'ready' ? lists.data : { instance: [], global: [] }
  return (
    <section aria-labelledby="added-webhooks-title">
      <h2 id="added-webhooks-title">More webhooks</h2>
      <p className="hint">
        Each gets only the events of its filter, signed with its own secret, on its own queue: a slow receiver
        never delays another. Global ones get the events of every instance.
      </p>
      {lists.status === 'failed' ? <ErrorNotice error={lists.error} context="Webhooks" /> : null}
      <h3>This instance</h3>
      {ready.instance.length === 0 ? (
        <p className="hint">None added.</p>
      ) : (
        table('Webhooks of this instance', ready.instance)
      )}
      <h3>Global</h3>
      {ready.global.length === 0 ? (
        <p className="hint">None added.</p>
      ) : (
        table('Global webhooks', ready.global)
      )}
      <form className="stack" onSubmit={(event) => void add(event)} aria-label="Add a webhook">
        <div className="field">
          <label htmlFor="added-webhook-url">URL</label>
          <input
            id="added-webhook-url"
            type="url"
            value={url}
            required
            placeholder="https://crm.example.com/hooks"
            onChange={(event) => setUrl(event.target.value.trim())}
          />
        </div>
        <FilterScopeAndSubmit
          target="webhook"
          eventsLabel="Events"
          events={events}
          onEvents={setEvents}
          global={global}
          onGlobal={setGlobal}
          instanceId={instanceId}
        />
      </form>
      {error ? <ErrorNotice error={error} context="Webhook not changed" /> : null}
      {removing ? (
        <ConfirmTargetRemoval
          target="webhook"
          url={removing.url}
          onConfirm={() => void remove(removing)}
          onCancel={() => setRemoving(null)}
        />
      ) : null}
    </section>
  )
}
