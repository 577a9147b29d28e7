import { type FormEvent, useMemo, useState } from 'react'
import type { AddedWebhookView, DeliveryAttemptView, DeliveryPage } from '../../api/types'
import { useApi } from '../../app/api-context'
import { useFeedSnapshot } from '../../app/feed-context'
import { useAction } from '../../app/use-action'
import { useOperation } from '../../app/use-operation'
import { CopyButton } from '../../components/CopyButton'
import { ErrorNotice } from '../../components/ErrorNotice'
import { AttemptList } from '../events/AttemptList'
import { webhookHealth } from '../events/delivery-summary'

/** The attempts read for a webhook's health and table; newer ones arrive live. */
const ATTEMPTS_READ = 50

/** The event filter as typed: names or patterns separated by commas or spaces. */
export function filterOf(text: string): string[] {
  return text
    .split(/[\s,]+/)
    .map((entry) => entry.trim())
    .filter(Boolean)
}

interface AddedWebhookItemProps {
  webhook: AddedWebhookView
  /** The instance chosen on the screen: a global webhook's failed events are redelivered for it. */
  instanceId: string
  onChanged(): void
  onRemove(): void
}

/**
 * One added webhook: its health (last error, failing since), its attempts each naming its URL, an edit of its
 * URL and event filter, its switch, secret rotation, redelivery of what failed, and removal.
 */
export function AddedWebhookItem({ webhook, instanceId, onChanged, onRemove }: AddedWebhookItemProps) {
  const api = useApi()
  const id = webhook.webhook_id
  const { deliveries } = useFeedSnapshot()
  const [page, reloadAttempts] = useOperation(
    (client) =>
      client.call<DeliveryPage>('deliveries', {
        webhook_id: id,
        ...(webhook.instance_id && { instance_id: webhook.instance_id }),
        limit: ATTEMPTS_READ,
      }),
    `webhook-attempts/${id}`,
  )
  const logged = page.status === 'ready' ? page.data.deliveries : undefined
  const attempts = useMemo(() => {
    const byId = new Map<string, DeliveryAttemptView>()
    for (const attempt of logged ?? []) byId.set(attempt.delivery_id, attempt)
    for (const attempt of deliveries) if (attempt.webhook_id === id) byId.set(attempt.delivery_id, attempt)
    return [...byId.values()].sort((a, b) => a.delivery_id.localeCompare(b.delivery_id))
  }, [logged, deliveries, id])
  const health = webhookHealth(attempts)
  const [editing, setEditing] = useState(false)
  const [url, setUrl] = useState(webhook.url)
  const [events, setEvents] = useState(webhook.events.join(', '))
  const [status, setStatus] = useState<string | null>(null)
  const { busy, error, run } = useAction()
  const redeliverFor = webhook.instance_id ?? instanceId

  const change = async (params: Record<string, unknown>, done: string) => {
    setStatus(null)
    const answer = await run(() => api.call('update_webhook', { webhook_id: id, ...params }))
    if (!answer) return false
    setStatus(done)
    onChanged()
    return true
  }
  const save = async (event: FormEvent) => {
    event.preventDefault()
    const filter = filterOf(events)
    if (await change({ url, events: filter.length ? filter : ['*'] }, 'Saved.')) setEditing(false)
  }
  const redeliver = async () => {
    setStatus(null)
    const answer = await run(() =>
      api.call<{ message: string }>('redeliver_failed', { instance_id: redeliverFor, webhook_id: id }),
    )
    if (!answer) return
    setStatus(answer.message)
    void reloadAttempts()
  }

  return (
    <li className="added-webhook">
      <p>
        <code>{webhook.url}</code>{' '}
        <span className="muted">{webhook.events.length ? webhook.events.join(', ') : 'every event'}</span>
        {webhook.enable ? null : <span className="muted"> (off)</span>}
      </p>
      <p className="webhook-health">
        Health:{' '}
        <span
          className={`badge badge-${health.state === 'failing' ? 'bad' : health.state === 'healthy' ? 'ok' : 'idle'}`}
        >
          {health.state === 'failing'
            ? 'Failing'
            : health.state === 'healthy'
              ? 'Delivering'
              : 'No attempts yet'}
        </span>
        {health.failingSince ? ` since ${new Date(health.failingSince).toLocaleString()}` : ''}
        {health.lastError ? ` — last error: ${health.lastError}` : ''}
      </p>
      <div className="actions">
        <button
          type="button"
          onClick={() => setEditing((open) => !open)}
          aria-expanded={editing}
          aria-label={`Edit ${webhook.url}`}
        >
          Edit
        </button>
        <button
          type="button"
          onClick={() =>
            void change({ enable: !webhook.enable }, webhook.enable ? 'Turned off.' : 'Turned on.')
          }
          aria-label={`${webhook.enable ? 'Turn off' : 'Turn on'} ${webhook.url}`}
        >
          {webhook.enable ? 'Turn off' : 'Turn on'}
        </button>
        <button
          type="button"
          onClick={() => void change({ rotate_secret: true }, 'Secret replaced: update the receiver.')}
          aria-label={`Rotate secret of ${webhook.url}`}
        >
          Rotate secret
        </button>
        <CopyButton text={webhook.secret} label={`the signing secret of ${webhook.url}`} />
        <button
          type="button"
          onClick={() => void redeliver()}
          disabled={!redeliverFor || busy !== null}
          aria-label={`Redeliver failed events to ${webhook.url}`}
        >
          Redeliver failed
        </button>
        <button type="button" className="danger" onClick={onRemove} aria-label={`Remove ${webhook.url}`}>
          Remove
        </button>
      </div>
      {editing ? (
        <form className="stack" onSubmit={(event) => void save(event)} aria-label={`Edit ${webhook.url}`}>
          <div className="field">
            <label htmlFor={`edit-url-${id}`}>URL</label>
            <input
              id={`edit-url-${id}`}
              type="url"
              required
              value={url}
              onChange={(event) => setUrl(event.target.value.trim())}
            />
          </div>
          <div className="field">
            <label htmlFor={`edit-events-${id}`}>Events</label>
            <input
              id={`edit-events-${id}`}
              value={events}
              placeholder="message.*, group.participants (empty: every event)"
              onChange={(event) => setEvents(event.target.value)}
            />
          </div>
          <div className="actions">
            <button type="submit" className="primary">
              Save
            </button>
          </div>
        </form>
      ) : null}
      {status ? <p role="status">{status}</p> : null}
      {error ? <ErrorNotice error={error} context="Webhook not changed" /> : null}
      <details>
        <summary>Attempts ({attempts.length})</summary>
        <AttemptList attempts={attempts} />
      </details>
    </li>
  )
}
