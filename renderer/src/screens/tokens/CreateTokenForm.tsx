import { type FormEvent, useState } from 'react'
import { useApi } from '../../app/api-context'
import { useAction } from '../../app/use-action'
import type { CreatedToken, InstanceSummary } from '../../api/types'
import { ErrorNotice } from '../../components/ErrorNotice'
import { accessParams, SCOPE_CHOICES, type TokenAccess, TokenAccessFields } from './TokenAccessFields'

const LABEL_MAX = 80

const NEW_ACCESS: TokenAccess = {
  reach: 'chosen',
  scopes: SCOPE_CHOICES.map(({ scope }) => scope).filter((scope) => scope !== 'admin'),
  instanceIds: [],
}

/** Creates a token with a label naming the script that will use it, its reach and its scopes. */
export function CreateTokenForm({
  instances,
  onCreated,
}: {
  instances: readonly InstanceSummary[]
  onCreated(created: CreatedToken): void
}) {
  const api = useApi()
  const [label, setLabel] = useState('')
  const [access, setAccess] = useState<TokenAccess>(NEW_ACCESS)
  const { busy, error, run } = useAction()

  const submit = async (event: FormEvent) => {
    event.preventDefault()
    const created = await run(() =>
      api.call<CreatedToken>('admin/tokens/create', { label: label.trim(), ...accessParams(access) }),
    )
    if (!created) return
    setLabel('')
    setAccess(NEW_ACCESS)
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
      <TokenAccessFields idPrefix="new-token" value={access} instances={instances} onChange={setAccess} />
      <button
        type="submit"
        className="primary"
        disabled={busy !== null || label.trim() === '' || access.scopes.length === 0}
      >
        {busy ? 'Creating…' : 'Create token'}
      </button>
      <p id="token-label-hint" className="hint">
        A name that says which script uses it, so you know what breaks if you revoke it.
      </p>
      {error ? <ErrorNotice error={error} context="Could not create the token" /> : null}
    </form>
  )
}
