import { type FormEvent, useState } from 'react'
import { useApi } from '../app/api-context'
import { AnswerView } from '../components/AnswerView'
import { CopyButton } from '../components/CopyButton'
import { ErrorNotice } from '../components/ErrorNotice'
import { InstanceField } from '../components/InstanceField'
import { curlCommand } from './curl-command'

/** Sends a text message by hand and shows the same request as curl. */
export function ComposerScreen({ apiBase }: { apiBase: string }) {
  const api = useApi()
  const [instanceId, setInstanceId] = useState('')
  const [number, setNumber] = useState('')
  const [message, setMessage] = useState('')
  const [answer, setAnswer] = useState<unknown>(null)
  const [error, setError] = useState<unknown>(null)
  const [busy, setBusy] = useState(false)
  const params = { instance_id: instanceId, number, type: 'text', message }

  const send = async (event: FormEvent) => {
    event.preventDefault()
    setBusy(true)
    setError(null)
    setAnswer(null)
    try {
      setAnswer(await api.call('send_message', params))
    } catch (failure) {
      setError(failure)
    } finally {
      setBusy(false)
    }
  }
  const curl = curlCommand(apiBase, 'send_message', params)

  return (
    <section aria-labelledby="composer-title">
      <h1 id="composer-title" tabIndex={-1}>
        Composer
      </h1>
      <p className="lead">Send a test message from a connected instance, exactly as a script would.</p>
      <form className="stack" onSubmit={(event) => void send(event)}>
        <InstanceField value={instanceId} onChange={setInstanceId} />
        <div className="field">
          <label htmlFor="composer-number">Number or group id</label>
          <input
            id="composer-number"
            value={number}
            required
            inputMode="tel"
            placeholder="e.g. 4915112345678 or 1203630@g.us"
            onChange={(event) => setNumber(event.target.value.trim())}
          />
        </div>
        <div className="field">
          <label htmlFor="composer-message">Message</label>
          <textarea
            id="composer-message"
            value={message}
            required
            rows={4}
            onChange={(e) => setMessage(e.target.value)}
          />
        </div>
        <div className="actions">
          <button type="submit" className="primary" disabled={busy}>
            {busy ? 'Sending…' : 'Send'}
          </button>
        </div>
      </form>
      {error ? <ErrorNotice error={error} context="Not sent" /> : null}
      {answer ? <AnswerView answer={answer} /> : null}
      <figure className="answer">
        <figcaption>
          The same request with curl <CopyButton text={curl} label="curl command" />
        </figcaption>
        <pre tabIndex={0}>{curl}</pre>
      </figure>
    </section>
  )
}
