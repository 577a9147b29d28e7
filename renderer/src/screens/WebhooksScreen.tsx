import { type FormEvent, useState } from 'react'
import { useApi } from '../app/api-context'
import { AnswerView } from '../components/AnswerView'
import { ErrorNotice } from '../components/ErrorNotice'
import { InstanceField } from '../components/InstanceField'

/** Sets an instance's webhook URL and switches delivery on or off. */
export function WebhooksScreen() {
  const api = useApi()
  const [instanceId, setInstanceId] = useState('')
  const [url, setUrl] = useState('')
  const [enable, setEnable] = useState(true)
  const [answer, setAnswer] = useState<unknown>(null)
  const [error, setError] = useState<unknown>(null)

  const save = async (event: FormEvent) => {
    event.preventDefault()
    setError(null)
    setAnswer(null)
    try {
      setAnswer(await api.call('set_webhook', { instance_id: instanceId, webhook_url: url, enable }))
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
        Linkdesk POSTs every event of an instance to its webhook URL, signed with the instance&apos;s secret.
      </p>
      <form className="stack" onSubmit={(event) => void save(event)}>
        <InstanceField value={instanceId} onChange={setInstanceId} />
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
            checked={enable}
            onChange={(e) => setEnable(e.target.checked)}
          />
          <label htmlFor="webhook-enable">Deliver events to this URL</label>
        </div>
        <div className="actions">
          <button type="submit" className="primary">
            Save webhook
          </button>
        </div>
      </form>
      {error ? <ErrorNotice error={error} context="Not saved" /> : null}
      {answer ? <AnswerView answer={answer} /> : null}
    </section>
  )
}
