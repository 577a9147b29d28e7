import { type FormEvent, type ReactNode, useState } from 'react'
import type { LoggedEventView } from '../../api/types'
import { useApi } from '../../app/api-context'
import { useAction } from '../../app/use-action'
import { DeleteForEveryoneDialog } from '../../components/DeleteForEveryoneDialog'
import { ErrorNotice } from '../../components/ErrorNotice'
import './MessageActions.css'

interface MessageRef {
  instanceId: string
  id: string
  chat: string
  fromMe: boolean
}

/** The message a message event is about, when it is one. */
function messageOf(event: LoggedEventView): MessageRef | undefined {
  if (event.event !== 'message.received' && event.event !== 'message.sent') return undefined
  const { id, chat, from_me } = event.data as { id?: unknown; chat?: unknown; from_me?: unknown }
  if (typeof id !== 'string' || typeof chat !== 'string') return undefined
  return {
    instanceId: event.instance_id,
    id,
    chat,
    fromMe: from_me === true || event.event === 'message.sent',
  }
}

/**
 * What an operator does to a message from its event: react, star or unstar it, edit or delete it (one this
 * account sent), forward it, mark it read (one it received); on a ringing call's event, reject the call.
 */
export function MessageActions({ event }: { event: LoggedEventView }) {
  if (event.event === 'call.received') return <RejectCall event={event} />
  const message = messageOf(event)
  return message ? <ActionsOnMessage message={message} /> : null
}

function ActionsOnMessage({ message }: { message: MessageRef }) {
  const api = useApi()
  const { busy, error, run } = useAction()
  const [status, setStatus] = useState<string | null>(null)
  const [emoji, setEmoji] = useState('👍')
  const [text, setText] = useState('')
  const [to, setTo] = useState('')
  const [confirming, setConfirming] = useState(false)
  const base = { instance_id: message.instanceId, message_id: message.id }

  const act = async (operation: string, params: Record<string, unknown>, done: string) => {
    setStatus(null)
    const answer = await run(() => api.call(operation, { ...base, ...params }), operation)
    if (answer) setStatus(done)
  }
  const submit =
    (operation: string, params: () => Record<string, unknown>, done: string) => (e: FormEvent) => {
      e.preventDefault()
      void act(operation, params(), done)
    }

  return (
    <section className="message-actions stack" aria-labelledby="message-actions-title">
      <h3 id="message-actions-title">Act on this message</h3>
      <div className="message-action-forms">
        <ActionForm
          label="React"
          onSubmit={submit('react', () => ({ emoji }), `Reacted ${emoji || '(reaction taken back)'}.`)}
          busy={busy === 'react'}
        >
          <label htmlFor="action-emoji">Emoji (empty takes the reaction back)</label>
          <input id="action-emoji" value={emoji} onChange={(e) => setEmoji(e.target.value)} />
        </ActionForm>
        <ActionForm
          label="Forward"
          onSubmit={submit('forward_message', () => ({ number: to }), `Forwarded to ${to}.`)}
          busy={busy === 'forward_message'}
        >
          <label htmlFor="action-forward">Forward to (number or group id)</label>
          <input id="action-forward" value={to} required onChange={(e) => setTo(e.target.value.trim())} />
        </ActionForm>
        {message.fromMe ? (
          <ActionForm
            label="Edit"
            onSubmit={submit('edit_message', () => ({ message: text }), 'Edited.')}
            busy={busy === 'edit_message'}
          >
            <label htmlFor="action-edit">New text</label>
            <input id="action-edit" value={text} required onChange={(e) => setText(e.target.value)} />
          </ActionForm>
        ) : null}
      </div>
      <div className="actions">
        <button
          type="button"
          disabled={busy !== null}
          onClick={() => void act('star_message', {}, 'Starred.')}
        >
          Star
        </button>
        <button
          type="button"
          disabled={busy !== null}
          onClick={() => void act('unstar_message', {}, 'Unstarred.')}
        >
          Unstar
        </button>
        {message.fromMe ? (
          <button type="button" className="danger" onClick={() => setConfirming(true)}>
            Delete for everyone
          </button>
        ) : (
          <button
            type="button"
            disabled={busy !== null}
            onClick={() => void act('mark_read', { message_ids: [message.id] }, 'Marked read.')}
          >
            Mark read
          </button>
        )}
      </div>
      {confirming ? (
        <DeleteForEveryoneDialog
          onCancel={() => setConfirming(false)}
          onConfirm={() => {
            setConfirming(false)
            void act('delete_message', {}, 'Deleted for everyone.')
          }}
        />
      ) : null}
      {status ? <p role="status">{status}</p> : null}
      {error ? <ErrorNotice error={error} context="Not done" /> : null}
    </section>
  )
}

function ActionForm({
  label,
  busy,
  onSubmit,
  children,
}: {
  label: string
  busy: boolean
  onSubmit: (event: FormEvent) => void
  children: ReactNode
}) {
  return (
    <form className="field" aria-label={label} onSubmit={onSubmit}>
      {children}
      <button type="submit" disabled={busy}>
        {label}
      </button>
    </form>
  )
}

/** A ringing call: the caller sees it declined. */
function RejectCall({ event }: { event: LoggedEventView }) {
  const api = useApi()
  const { busy, error, run } = useAction()
  const [status, setStatus] = useState<string | null>(null)
  const { id } = event.data as { id?: unknown }
  if (typeof id !== 'string') return null
  const reject = async () => {
    const answer = await run(() => api.call('reject_call', { instance_id: event.instance_id, call_id: id }))
    if (answer) setStatus('Call rejected.')
  }
  return (
    <div className="stack">
      <div className="actions">
        <button type="button" className="danger" disabled={busy !== null} onClick={() => void reject()}>
          Reject the call
        </button>
      </div>
      {status ? <p role="status">{status}</p> : null}
      {error ? <ErrorNotice error={error} context="Not rejected" /> : null}
    </div>
  )
}
