import { type FormEvent, useState } from 'react'
import { useApi } from '../../app/api-context'
import { useAction } from '../../app/use-action'
import { ErrorNotice } from '../../components/ErrorNotice'
import './ChatTools.css'

interface CheckedNumber {
  number: string
  exists: boolean
  chat_id: string | null
  lid: string | null
}

interface Profile {
  chat: string
  about: string | null
  picture_url: string | null
}

/**
 * What an operator does in a chat by hand, on a connected instance: mark it read, show typing, send a poll,
 * check numbers and look at a contact's profile.
 */
export function ChatTools({ instanceId }: { instanceId: string }) {
  return (
    <section className="chat-tools" aria-labelledby="chat-tools-title">
      <h2 id="chat-tools-title">In a chat</h2>
      <div className="chat-tools-grid">
        <ChatSignals instanceId={instanceId} />
        <PollForm instanceId={instanceId} />
        <NumberCheck instanceId={instanceId} />
        <ContactProfile instanceId={instanceId} />
      </div>
    </section>
  )
}

/** Mark a chat read, and typing or paused in it. */
function ChatSignals({ instanceId }: { instanceId: string }) {
  const api = useApi()
  const [number, setNumber] = useState('')
  const { busy, error, run } = useAction()
  const [status, setStatus] = useState<string | null>(null)
  const act = async <T,>(operation: string, params: Record<string, unknown>, done: (answer: T) => string) => {
    setStatus(null)
    const answer = await run(() => api.call<T>(operation, { instance_id: instanceId, number, ...params }))
    if (answer) setStatus(done(answer))
  }
  const ready = number !== '' && busy === null
  return (
    <form className="stack" aria-label="Chat signals" onSubmit={(e) => e.preventDefault()}>
      <h3>Read and typing</h3>
      <div className="field">
        <label htmlFor="signals-number">Chat (number or group id)</label>
        <input id="signals-number" value={number} onChange={(e) => setNumber(e.target.value.trim())} />
      </div>
      <div className="actions">
        <button
          type="button"
          disabled={!ready}
          onClick={() => void act<{ read: number }>('mark_read', {}, (a) => `Marked ${a.read} read.`)}
        >
          Mark chat read
        </button>
        <button
          type="button"
          disabled={!ready}
          onClick={() => void act('send_presence', { presence: 'typing' }, () => 'Showing typing…')}
        >
          Show typing
        </button>
        <button
          type="button"
          disabled={!ready}
          onClick={() => void act('send_presence', { presence: 'paused' }, () => 'Typing stopped.')}
        >
          Stop typing
        </button>
      </div>
      {status ? <p role="status">{status}</p> : null}
      {error ? <ErrorNotice error={error} context="Not done" /> : null}
    </form>
  )
}

function PollForm({ instanceId }: { instanceId: string }) {
  const api = useApi()
  const [number, setNumber] = useState('')
  const [question, setQuestion] = useState('')
  const [options, setOptions] = useState('')
  const [multiple, setMultiple] = useState(false)
  const { busy, error, run } = useAction()
  const [status, setStatus] = useState<string | null>(null)
  const send = async (event: FormEvent) => {
    event.preventDefault()
    setStatus(null)
    const list = options
      .split('\n')
      .map((option) => option.trim())
      .filter((option) => option !== '')
    const answer = await run(() =>
      api.call('send_poll', { instance_id: instanceId, number, question, options: list, multiple }),
    )
    if (answer) setStatus(`Poll sent to ${number}.`)
  }
  return (
    <form className="stack" aria-label="Send a poll" onSubmit={(e) => void send(e)}>
      <h3>Poll</h3>
      <div className="field">
        <label htmlFor="poll-number">To (number or group id)</label>
        <input id="poll-number" value={number} required onChange={(e) => setNumber(e.target.value.trim())} />
      </div>
      <div className="field">
        <label htmlFor="poll-question">Question</label>
        <input id="poll-question" value={question} required onChange={(e) => setQuestion(e.target.value)} />
      </div>
      <div className="field">
        <label htmlFor="poll-options">Options, one a line (2 to 12)</label>
        <textarea
          id="poll-options"
          rows={3}
          value={options}
          required
          onChange={(e) => setOptions(e.target.value)}
        />
      </div>
      <label className="field-inline">
        <input type="checkbox" checked={multiple} onChange={(e) => setMultiple(e.target.checked)} /> Several
        answers allowed
      </label>
      <div className="actions">
        <button type="submit" disabled={busy !== null}>
          Send poll
        </button>
      </div>
      {status ? <p role="status">{status}</p> : null}
      {error ? <ErrorNotice error={error} context="Poll not sent" /> : null}
    </form>
  )
}

function NumberCheck({ instanceId }: { instanceId: string }) {
  const api = useApi()
  const [numbers, setNumbers] = useState('')
  const [found, setFound] = useState<CheckedNumber[] | null>(null)
  const { busy, error, run } = useAction()
  const check = async (event: FormEvent) => {
    event.preventDefault()
    const list = numbers.split(/[\s,]+/).filter((number) => number !== '')
    const answer = await run(() =>
      api.call<{ numbers: CheckedNumber[] }>('check_numbers', { instance_id: instanceId, numbers: list }),
    )
    setFound(answer ? answer.numbers : null)
  }
  return (
    <form className="stack" aria-label="Check numbers" onSubmit={(e) => void check(e)}>
      <h3>Is it on WhatsApp?</h3>
      <div className="field">
        <label htmlFor="check-numbers">Numbers (separated by spaces or commas)</label>
        <input id="check-numbers" value={numbers} required onChange={(e) => setNumbers(e.target.value)} />
      </div>
      <div className="actions">
        <button type="submit" disabled={busy !== null}>
          Check
        </button>
      </div>
      {found ? (
        <ul aria-label="Checked numbers">
          {found.map((entry) => (
            <li key={entry.number}>
              +{entry.number}: {entry.exists ? `on WhatsApp (${entry.chat_id})` : 'not on WhatsApp'}
            </li>
          ))}
        </ul>
      ) : null}
      {error ? <ErrorNotice error={error} context="Not checked" /> : null}
    </form>
  )
}

function ContactProfile({ instanceId }: { instanceId: string }) {
  const api = useApi()
  const [number, setNumber] = useState('')
  const [profile, setProfile] = useState<Profile | null>(null)
  const [picture, setPicture] = useState<string | null>(null)
  const { busy, error, run } = useAction()
  const look = async (event: FormEvent) => {
    event.preventDefault()
    setProfile(null)
    setPicture(null)
    const answer = await run(async () => {
      const found = await api.call<Profile>('profile', { instance_id: instanceId, number })
      // The picture is served with the same credential as the API: fetch it and show it as an object URL.
      const image = found.picture_url ? await api.fetchBlob(found.picture_url) : null
      return { found, image }
    })
    if (!answer) return
    setProfile(answer.found)
    setPicture(answer.image ? URL.createObjectURL(answer.image) : null)
  }
  return (
    <form className="stack" aria-label="Contact profile" onSubmit={(e) => void look(e)}>
      <h3>Contact profile</h3>
      <div className="field">
        <label htmlFor="profile-number">Number or group id</label>
        <input
          id="profile-number"
          value={number}
          required
          onChange={(e) => setNumber(e.target.value.trim())}
        />
      </div>
      <div className="actions">
        <button type="submit" disabled={busy !== null}>
          Show profile
        </button>
      </div>
      {profile ? (
        <dl className="facts" aria-label="Profile">
          <dt>Chat</dt>
          <dd>{profile.chat}</dd>
          <dt>About</dt>
          <dd>{profile.about ?? 'Hidden or none'}</dd>
          <dt>Picture</dt>
          <dd>
            {picture ? (
              <img className="profile-picture" src={picture} alt={`Profile picture of ${profile.chat}`} />
            ) : (
              'Hidden or none'
            )}
          </dd>
        </dl>
      ) : null}
      {error ? <ErrorNotice error={error} context="No profile" /> : null}
    </form>
  )
}
