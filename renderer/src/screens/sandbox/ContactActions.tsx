import { type FormEvent, type ReactNode, useState } from 'react'
import type { SandboxInboxEntryView } from '../../api/types'
import { useApi } from '../../app/api-context'
import { useAction } from '../../app/use-action'
import { ErrorNotice } from '../../components/ErrorNotice'

type Act = 'react' | 'edit' | 'revoke' | 'vote' | 'read'

const ACT_LABELS: Record<Act, string> = {
  react: 'React',
  edit: 'Edit',
  revoke: 'Delete for everyone',
  vote: 'Vote',
  read: 'Read',
}

/** What the contact's phone sends for an act on message `id` (a message body, or the ids it reads). */
function actBody(act: Act, id: string, value: string): Record<string, unknown> {
  switch (act) {
    case 'react':
      return { reaction: { id, emoji: value } }
    case 'edit':
      return { edit: { id, text: value } }
    case 'revoke':
      return { revoke: { id } }
    case 'vote':
      return {
        vote: {
          id,
          options: value
            .split(/[\n,]/)
            .map((option) => option.trim())
            .filter((option) => option !== ''),
        },
      }
    case 'read':
      return { ids: [id] }
  }
}

/**
 * The contact acts as a person on the phone would: on a message (react, edit or delete one it sent, vote
 * on a poll, read), in a chat (type, pause), or calls.
 */
export function ContactActions({
  phone,
  suggestedTo,
  inbox,
}: {
  phone: string
  suggestedTo: string
  inbox: SandboxInboxEntryView[]
}) {
  const api = useApi()
  const { busy, error, run } = useAction()
  const [status, setStatus] = useState<string | null>(null)
  const [to, setTo] = useState('')
  const [act, setAct] = useState<Act>('react')
  const [messageId, setMessageId] = useState('')
  const [value, setValue] = useState('👍')
  const [video, setVideo] = useState(false)
  const chat = to || suggestedTo
  const account = `sandbox/accounts/${encodeURIComponent(phone)}`

  const post = async (path: string, body: Record<string, unknown>, done: string) => {
    setStatus(null)
    const answer = await run(() => api.request('POST', `${account}/${path}`, { json: body }))
    if (answer) setStatus(done)
  }
  const onMessage = (event: FormEvent) => {
    event.preventDefault()
    const body = actBody(act, messageId, value)
    if (act === 'read') void post('read', body, `+${phone} read ${messageId}.`)
    else void post('messages', { to: chat, ...body }, `${ACT_LABELS[act]}: sent as +${phone}.`)
  }

  return (
    <section className="stack" aria-labelledby={`contact-actions-${phone}`}>
      <h3 id={`contact-actions-${phone}`}>Act as this contact</h3>
      <div className="field">
        <label htmlFor="contact-act-to">Chat (number or group id)</label>
        <input
          id="contact-act-to"
          value={chat}
          onChange={(event) => setTo(event.target.value.trim())}
          aria-describedby="contact-act-to-hint"
        />
        <p id="contact-act-to-hint" className="hint">
          Where the reaction, edit, deletion, vote, typing or call goes.
        </p>
      </div>
      <form className="stack" aria-label="Act on a message" onSubmit={onMessage}>
        <div className="field">
          <label htmlFor="contact-act">Action</label>
          <select id="contact-act" value={act} onChange={(event) => setAct(event.target.value as Act)}>
            {(Object.keys(ACT_LABELS) as Act[]).map((key) => (
              <option key={key} value={key}>
                {ACT_LABELS[key]}
              </option>
            ))}
          </select>
        </div>
        <div className="field">
          <label htmlFor="contact-act-id">Message id</label>
          <input
            id="contact-act-id"
            list="contact-act-ids"
            value={messageId}
            required
            onChange={(event) => setMessageId(event.target.value.trim())}
          />
          <datalist id="contact-act-ids">
            {inbox.map((message) => (
              <option key={message.id} value={message.id}>
                {message.text ?? message.caption ?? message.type}
              </option>
            ))}
          </datalist>
        </div>
        {act === 'react' || act === 'edit' || act === 'vote' ? (
          <Field id="contact-act-value" label={VALUE_LABELS[act]}>
            <input id="contact-act-value" value={value} onChange={(event) => setValue(event.target.value)} />
          </Field>
        ) : null}
        <div className="actions">
          <button type="submit" disabled={busy !== null}>
            {ACT_LABELS[act]}
          </button>
        </div>
      </form>
      <div className="actions" role="group" aria-label="Typing and calls">
        <button
          type="button"
          disabled={busy !== null || !chat}
          onClick={() => void post('presence', { state: 'composing', to: chat }, `+${phone} is typing.`)}
        >
          Type
        </button>
        <button
          type="button"
          disabled={busy !== null || !chat}
          onClick={() => void post('presence', { state: 'paused', to: chat }, `+${phone} stopped typing.`)}
        >
          Pause typing
        </button>
        <button
          type="button"
          disabled={busy !== null || !chat}
          onClick={() => void post('calls', { to: chat, video }, `+${phone} is calling ${chat}.`)}
        >
          Call
        </button>
        <label className="field-inline">
          <input type="checkbox" checked={video} onChange={(event) => setVideo(event.target.checked)} /> Video
        </label>
      </div>
      {status ? <p role="status">{status}</p> : null}
      {error ? <ErrorNotice error={error} context="Sandbox" /> : null}
    </section>
  )
}

const VALUE_LABELS = {
  react: 'Emoji (empty takes the reaction back)',
  edit: 'New text',
  vote: 'Options picked (by name, one a line or separated by commas)',
} as const

function Field({ id, label, children }: { id: string; label: string; children: ReactNode }) {
  return (
    <div className="field">
      <label htmlFor={id}>{label}</label>
      {children}
    </div>
  )
}
