import { type FormEvent, useEffect, useState } from 'react'
import type { WebhookAnswer, WebhookView } from '../../api/types'
import { useApi } from '../../app/api-context'
import { ErrorNotice } from '../../components/ErrorNotice'
import { InstanceSelect } from '../../components/InstanceSelect'
import { TestDelivery } from './TestDelivery'
import { WebhookSecret } from './WebhookSecret'

/** An instance's webhook: URL, delivery on or off, the signing secret, and a test event. */
export function WebhooksScreen() {
  const api = useApi()
  const [instanceId, setInstanceId] = useState('')
  const [saved, setSaved] = useState<WebhookView | null>(null)
  const [url, setUrl] = useState('')
  const [enable, setEnable] = useState(true)
  const [status, setStatus] = useState<string | null>(null)
  const [error, setError] = useState<unknown>(null)

  useEffect(() => {
    if (!instanceId) return
    setSaved(null)
    setStatus(null)
    setError(null)
    api.call<WebhookAnswer>('get_webhook', { instance_id: instanceId }).then(({ webhook }) => {
      setSaved(webhook)
      setUrl(webhook.url ?? '')
      setEnable(webhook.url ? webhook.enable : true)
    }, setError)
  }, [api, instanceId])

  const save = async (event: FormEvent) => {
    event.preventDefault()
    setError(null)
    setStatus(null)
    try {
      const answer = await api.call<{ message: string }>('set_webhook', {
        instance_id: instanceId,
        webhook_url: url,
        enable,
      })
      setSaved((known) => known && { ...known, url, enable })
      setStatus(answer.message)
    } catch (failure) {
      setError(failure)
    }
  }

  return (
    <section aria-labelledby="webhooks-title">
      <h1 id="webhooks-title" tabIndex={-1}>
        Webhooks
      </h1>
      <p className="lead">
        Linkdesk POSTs every event of an instance to its webhook URL, signed with the instance&apos;s secret,
        and retries until the receiver answers 2xx.
      </p>
      <InstanceSelect value={instanceId} onChange={setInstanceId} />
      <form className="stack" onSubmit={(event) => void save(event)}>
        <div className="field">
          <label htmlFor="webhook-url">Webhook URL</label>
          <input
            id="webhook-url"
            type="url"
            value={url}
            required
            placeholder="http://127.0.0.1:3000/webhook"
            onChange={(event) => setUrl(event.target.value.trim())}
          />
        </div>
        <div className="field-inline">
          <input
            id="webhook-enable"
            type="checkbox"
            role="switch"
            checked={enable}
            onChange={(event) => setEnable(event.target.checked)}
          />
          <label htmlFor="webhook-enable">Deliver events to this URL</label>
        </div>
        <div className="actions">
          <button type="submit" className="primary" disabled={!instanceId}>
            Save webhook
          </button>
        </div>
      </form>
      {status ? (
        <p className="notice" role="status">
          {status}
        </p>
      ) : null}
      {error ? <ErrorNotice error={error} context="Webhook" /> : null}
      {saved ? (
        <>
          <WebhookSecret
            instanceId={instanceId}
            secret={saved.secret}
            onRotated={(secret) => setSaved({ ...saved, secret })}
          />
          <TestDelivery instanceId={instanceId} enabled={Boolean(saved.url && saved.enable)} />
        </>
      ) : null}
    </section>
  )
}
