import { type FormEvent, useId, useState } from 'react'
import type { MessageView } from '../../api/types'
import { useApi } from '../../app/api-context'
import { useAction } from '../../app/use-action'
import { DeleteForEveryoneDialog } from '../../components/DeleteForEveryoneDialog'
import { ErrorNotice } from '../../components/ErrorNotice'

const QUICK_REACTIONS = ['👍', '❤️', '😂', '😮', '🙏']

/** What the person does to the chosen message: reply, react, forward; edit or delete an own one. */
export function MessageToolbar({
  instanceId,
  message,
  deleted,
  onReply,
  onClose,
}: {
  instanceId: string
  message: MessageView
  deleted: boolean
  onReply(): void
  onClose(): void
}) {
  const api = useApi()
  const forwardId = useId()
  const editId = useId()
  const { busy, error, run } = useAction()
  const [done, setDone] = useState<string | null>(null)
  const [forwardTo, setForwardTo] = useState('')
  const [editing, setEditing] = useState<string | null>(null)
  const [confirming, setConfirming] = useState(false)
  const act = async (operation: string, params: Record<string, unknown>, words: string) => {
    setDone(null)
    const answer = await run(
      () => api.call(operation, { instance_id: instanceId, message_id: message.id, ...params }),
      operation,
    )
    if (answer) setDone(words)
  }
  const submit = (handler: () => void) => (event: FormEvent) => {
    event.preventDefault()
    handler()
  }
  const editable = message.from_me && message.type === 'text' && !deleted
  return (
    <section className="message-toolbar" aria-label="The chosen message">
      <div className="actions">
        <button type="button" onClick={onReply}>
          Reply
        </button>
        <span role="group" aria-label="React" className="quick-reactions">
          {QUICK_REACTIONS.map((emoji) => (
            <button
              key={emoji}
              type="button"
              aria-label={`React ${emoji}`}
              disabled={busy !== null}
              onClick={() => void act('react', { emoji }, `Reacted ${emoji}.`)}
            >
              {emoji}
            </button>
          ))}
          <button
            type="button"
            disabled={busy !== null}
            onClick={() => void act('react', { emoji: '' }, 'Reaction taken back.')}
          >
            Take back reaction
          </button>
        </span>
        {editable ? (
          <button type="button" onClick={() => setEditing(message.text ?? '')}>
            Edit
          </button>
        ) : null}
        {message.from_me && !deleted ? (
          <button type="button" className="danger" onClick={() => setConfirming(true)}>
            Delete for everyone
          </button>
        ) : null}
        <button type="button" onClick={onClose}>
          Close
        </button>
      </div>
      <form
        className="inline-form"
        aria-label="Forward"
        onSubmit={submit(
          () => void act('forward_message', { number: forwardTo }, `Forwarded to ${forwardTo}.`),
        )}
      >
        <label htmlFor={forwardId}>Forward to</label>
        <input
          id={forwardId}
          value={forwardTo}
          required
          placeholder="Number or group id"
          onChange={(event) => setForwardTo(event.target.value.trim())}
        />
        <button type="submit" disabled={busy !== null}>
          Forward
        </button>
      </form>
      {editing !== null ? (
        <form
          className="inline-form"
          aria-label="Edit"
          onSubmit={submit(() => {
            void act('edit_message', { message: editing }, 'Edited.').then(() => setEditing(null))
          })}
        >
          <label htmlFor={editId}>New text</label>
          <input id={editId} value={editing} required onChange={(event) => setEditing(event.target.value)} />
          <button type="submit" disabled={busy !== null}>
            Save the edit
          </button>
        </form>
      ) : null}
      {confirming ? (
        <DeleteForEveryoneDialog
          onCancel={() => setConfirming(false)}
          onConfirm={() => {
            setConfirming(false)
            void act('delete_message', {}, 'Deleted for everyone.')
          }}
        />
      ) : null}
      {done ? <p role="status">{done}</p> : null}
      {error ? <ErrorNotice error={error} context="Not done" /> : null}
    </section>
  )
}
