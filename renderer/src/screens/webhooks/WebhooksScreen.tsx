import { type FormEvent, useEffect, useState } from 'react'
import type { WebhookAnswer } from '../../api/types'
import { useApi } from '../../app/api-context'
import { useAction } from '../../app/use-action'
import { useOperation } from '../../app/use-operation'
import { ErrorNotice } from '../../components/ErrorNotice'
import { ScreenHeader } from '../../components/ScreenHeader'
import { InstanceSelect } from '../../components/InstanceSelect'
import { AddedWebhooks } from './AddedWebhooks'
import { BrokerSinks } from './BrokerSinks'
import { TestDelivery } from './TestDelivery'
import { WebhookSecret } from './WebhookSecret'

/** An instance's webhook: URL, delivery on or off, the signing secret, and a test event. */
export function WebhooksScreen() {
  const [instanceId, setInstanceId] = useState('')
  return (
    <section aria-labelledby="webhooks-title">
      <ScreenHeader
        id="webhooks-title"
        title="Webhooks"
        lead="Linkdesk POSTs every event of an instance to its webhook URL, signed with the instance's secret, and retries until the receiver answers 2xx."
      />
      <InstanceSelect value={instanceId} onChange={setInstanceId} />
      {/* The forms wait for an instance: one typed into before the first is picked would be replaced. */}
      {instanceId ? (
        <>
          <WebhookSettings key={instanceId} instanceId={instanceId} />
          <AddedWebhooks key={`added-${instanceId}`} instanceId={instanceId} />
          <BrokerSinks key={`sinks-${instanceId}`} instanceId={instanceId} />
        </>
      ) : null}
    </section>
  )
}

/** The chosen instance's webhook. */
function WebhookSettings({ instanceId }: { instanceId: string }) {
  const api = useApi()
  const [loaded, reload] = useOperation(
    async (client) =>
      instanceId
        ? (await client.call<WebhookAnswer>('get_webhook', { instance_id: instanceId })).webhook
        : null,
    instanceId,
  )
  const saved = loaded.status === 'ready' ? loaded.data : null
  const [url, setUrl] = useState('')
  const [enable, setEnable] = useState(true)
  const [batchSize, setBatchSize] = useState(1)
  const [status, setStatus] = useState<string | null>(null)
  /** The operator has typed: the saved settings, when they arrive, no longer overwrite the form. */
  const [edited, setEdited] = useState(false)
  const { error, run } = useAction()

  useEffect(() => {
    if (!saved || edited) return
    setUrl(saved.url ?? '')
    setEnable(saved.url ? saved.enable : true)
    setBatchSize(saved.batch_size)
  }, [saved, edited])

  const save = async (event: FormEvent) => {
    event.preventDefault()
    setStatus(null)
    const answer = await run(() =>
      api.call<{ message: string }>('set_webhook', {
        instance_id: instanceId,
        webhook_url: url,
        enable,
        batch_size: batchSize,
      }),
    )
    if (!answer) return
    setStatus(answer.message)
    void reload()
  }

  return (
    <>
      <form className="stack" onSubmit={(event) => void save(event)}>
        <div className="field">
          <label htmlFor="webhook-url">Webhook URL</label>
          <input
            id="webhook-url"
            type="url"
            value={url}
            required
            placeholder="http://127.0.0.1:3000/webhook"
            onChange={(event) => {
              setEdited(true)
              setUrl(event.target.value.trim())
            }}
          />
        </div>
        <div className="field-inline">
          <input
            id="webhook-enable"
            type="checkbox"
            role="switch"
            checked={enable}
            onChange={(event) => {
              setEdited(true)
              setEnable(event.target.checked)
            }}
          />
          <label htmlFor="webhook-enable">Deliver events to this URL</label>
        </div>
        <div className="field">
          <label htmlFor="webhook-batch">Events per POST</label>
          <input
            id="webhook-batch"
            type="number"
            min={1}
            max={100}
            required
            aria-describedby="webhook-batch-hint"
            value={batchSize}
            onChange={(event) => {
              setEdited(true)
              setBatchSize(Number(event.target.value))
            }}
          />
          <p id="webhook-batch-hint" className="hint">
            1: each POST is one event. More: under load, a POST carries the events waiting, as a JSON array,
            in order.
          </p>
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
      {loaded.status === 'failed' ? <ErrorNotice error={loaded.error} context="Webhook" /> : null}
      {saved ? (
        <>
          <WebhookSecret instanceId={instanceId} secret={saved.secret} onRotated={() => void reload()} />
          <TestDelivery instanceId={instanceId} enabled={Boolean(saved.url && saved.enable)} />
        </>
      ) : null}
    </>
  )
}
