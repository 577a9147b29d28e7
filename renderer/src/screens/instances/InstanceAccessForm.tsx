import { type FormEvent, useEffect, useState } from 'react'
import type { InstanceAccessAnswer, TokenList } from '../../api/types'
import { useApi } from '../../app/api-context'
import { useAction } from '../../app/use-action'
import { useOperation } from '../../app/use-operation'
import { ErrorNotice } from '../../components/ErrorNotice'
import './InstanceAccessForm.css'

/**
 * Who may use the instance: the tokens reaching all instances (always), and the tokens with a chosen reach
 * ticked here (admin/set_instance_access).
 */
export function InstanceAccessForm({ instanceId }: { instanceId: string }) {
  const api = useApi()
  const [state, reload] = useOperation(async (client) => {
    const [access, tokens] = await Promise.all([
      client.call<InstanceAccessAnswer>('admin/instance_access', { instance_id: instanceId }),
      client.call<TokenList>('admin/tokens'),
    ])
    return { access: access.access, tokens: tokens.tokens }
  }, `access ${instanceId}`)
  const [chosen, setChosen] = useState<string[]>([])
  const [saved, setSaved] = useState(false)
  const { busy, error, run } = useAction()
  useEffect(() => {
    if (state.status === 'ready') setChosen(state.data.access.token_ids)
  }, [state])

  const save = async (event: FormEvent) => {
    event.preventDefault()
    setSaved(false)
    const done = await run(
      () => api.call('admin/set_instance_access', { instance_id: instanceId, token_ids: chosen }),
      'Saving…',
    )
    if (done === undefined) return
    setSaved(true)
    await reload()
  }

  if (state.status === 'loading') return <p className="loading">Loading who may use it…</p>
  if (state.status === 'failed')
    return <ErrorNotice error={state.error} context="Could not load who may use it" />
  const everywhere = state.data.tokens.filter((token) => token.reach === 'all')
  const choosable = state.data.tokens.filter((token) => token.reach === 'chosen')
  return (
    <form
      className="stack instance-access"
      aria-labelledby="instance-access-title"
      onSubmit={(event) => void save(event)}
    >
      <h2 id="instance-access-title">Who may use it</h2>
      <p className="hint">
        Tokens reaching all instances:{' '}
        {everywhere.length ? everywhere.map((token) => token.label).join(', ') : 'none yet'}.
      </p>
      {choosable.length === 0 ? (
        <p className="hint">
          No token has a chosen reach: create one on the Tokens screen to give it this instance.
        </p>
      ) : (
        <fieldset>
          <legend>Tokens with a chosen reach</legend>
          {choosable.map((token) => (
            <div className="field-inline" key={token.id}>
              <input
                id={`access-${token.id}`}
                type="checkbox"
                checked={chosen.includes(token.id)}
                onChange={(event) =>
                  setChosen((current) =>
                    event.target.checked ? [...current, token.id] : current.filter((id) => id !== token.id),
                  )
                }
              />
              <label htmlFor={`access-${token.id}`}>
                {token.label} <span className="hint">({token.scopes.join(', ')})</span>
              </label>
            </div>
          ))}
          <div className="actions">
            <button type="submit" className="primary" disabled={busy !== null}>
              {busy ?? 'Save who may use it'}
            </button>
            {saved ? <span role="status">Saved</span> : null}
          </div>
        </fieldset>
      )}
      {error ? <ErrorNotice error={error} context="Not saved" /> : null}
    </form>
  )
}
