import { type FormEvent, useState } from 'react'
import { useApi } from '../../app/api-context'
import { useAction } from '../../app/use-action'
import type { CreatedToken } from '../../api/types'
import { ErrorNotice } from '../../components/ErrorNotice'

const LABEL_MAX = 80

/** Creates a token with a label naming the script that will use it. */
export function CreateTokenForm({ onCreated }: { onCreated(created: CreatedToken): void }) {
  const api = useApi()
  const [label, setLabel] = useState('')
  const { busy, error, run } = useAction()

  const submit = async (event: FormEvent) => {
    event.preventDefault()
    const created = await run(() => api.call<CreatedToken>('admin/tokens/create', { label: label.trim() }))
    if (!created) return
    setLabel('')
    onCreated(created)
  }

  return (
    <form
      className="inline-form"
      onSubmit={(event) => void submit(event)}
      aria-label="Create an access token"
    >
      <label htmlFor="token-label">Label</label>
      <input
        id="token-label"
        value={label}
        onChange={(event) => setLabel(event.target.value)}
        maxLength={LABEL_MAX}
        required
        placeholder="e.g. order-bot on this laptop"
        aria-describedby="token-label-hint"
      />
      <button type="submit" className="primary" disabled={busy !== null || label.trim() === ''}>
        {busy ? 'Creating…' : 'Create token'}
      </button>
      <p id="token-label-hint" className="hint">
        A name that says which script uses it, so you know what breaks if you revoke it.
      </p>
      {error ? <ErrorNotice error={error} context="Could not create the token" /> : null}
    </form>
  )
}
