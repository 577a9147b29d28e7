import { useState, type FormEvent } from 'react'
import { ApiError } from '../../api/api-error'
import type { ApiClient } from '../../api/client'
import type { ChatList } from '../../api/types'
import { useApi } from '../../app/api-context'
import { useAction } from '../../app/use-action'
import { ErrorNotice } from '../../components/ErrorNotice'

type Chat = ChatList['chats'][number]
export type Label = Chat['labels'][number]

/** A Business account's labels; null for a personal account, which has none (the API answers not_business). */
export async function readLabels(api: ApiClient, instanceId: string): Promise<Label[] | null> {
  try {
    return (await api.call<{ labels: Label[] }>('labels', { instance_id: instanceId })).labels
  } catch (error) {
    if (error instanceof ApiError && error.code === 'not_business') return null
    throw error
  }
}

/** The account's labels and a form to create one; the list reloads from the label.updated that follows. */
export function LabelsSection({ instanceId, labels }: { instanceId: string; labels: Label[] }) {
  const api = useApi()
  const [name, setName] = useState('')
  const { busy, error, run } = useAction()
  const create = async (event: FormEvent) => {
    event.preventDefault()
    const made = await run(
      () => api.call('create_label', { instance_id: instanceId, name: name.trim() }),
      'Creating…',
    )
    if (made) setName('')
  }
  return (
    <section aria-labelledby="labels-title" className="stack">
      <h2 id="labels-title">Labels</h2>
      {labels.length === 0 ? <p className="hint">No labels yet: create one, then put it on chats.</p> : null}
      <ul aria-label="Labels">
        {labels.map((label) => (
          <li key={label.id}>{label.name}</li>
        ))}
      </ul>
      <form className="stack" aria-label="New label" onSubmit={(event) => void create(event)}>
        <div className="field">
          <label htmlFor="label-name">New label</label>
          <input
            id="label-name"
            value={name}
            maxLength={100}
            onChange={(event) => setName(event.target.value)}
          />
        </div>
        <div className="actions">
          <button type="submit" disabled={busy !== null || !name.trim()}>
            {busy ?? 'Create label'}
          </button>
        </div>
        {error ? <ErrorNotice error={error} context="Label not created" /> : null}
      </form>
    </section>
  )
}

/**
 * A chat's labels, each with a button to take it off, and a choice of the others to put on; the row refreshes
 * from the chat.labeled that follows.
 */
export function ChatLabelPicker({
  instanceId,
  chat,
  name,
  labels,
}: {
  instanceId: string
  chat: Chat
  name: string
  labels: Label[]
}) {
  const api = useApi()
  const [chosen, setChosen] = useState('')
  const { busy, error, run } = useAction()
  const change = (operation: 'label_chat' | 'unlabel_chat', labelId: string) =>
    void run(() => api.call(operation, { instance_id: instanceId, number: chat.chat, label_id: labelId }))
  const on = new Set(chat.labels.map((label) => label.id))
  const offered = labels.filter((label) => !on.has(label.id))
  const pick = offered.some((label) => label.id === chosen) ? chosen : (offered[0]?.id ?? '')
  return (
    <span className="chat-labels" role="group" aria-label={`Labels of ${name}`}>
      {chat.labels.map((label) => (
        <span key={label.id} className="chat-label">
          {labels.find((known) => known.id === label.id)?.name ?? label.name}
          <button
            type="button"
            aria-label={`Take ${label.name} off ${name}`}
            disabled={busy !== null}
            onClick={() => change('unlabel_chat', label.id)}
          >
            ×
          </button>
        </span>
      ))}
      {offered.length > 0 ? (
        <>
          <select
            aria-label={`Label to put on ${name}`}
            value={pick}
            onChange={(event) => setChosen(event.target.value)}
          >
            {offered.map((label) => (
              <option key={label.id} value={label.id}>
                {label.name}
              </option>
            ))}
          </select>
          <button type="button" disabled={busy !== null} onClick={() => change('label_chat', pick)}>
            Add label
          </button>
        </>
      ) : null}
      {error ? <ErrorNotice error={error} context={`Could not label ${name}`} /> : null}
    </span>
  )
}
