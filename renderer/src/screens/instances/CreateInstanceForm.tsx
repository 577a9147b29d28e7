import { type FormEvent, useState } from 'react'
import type { TokenList } from '../../api/types'
import { useApi } from '../../app/api-context'
import { hrefFor } from '../../app/routes'
import { useAction } from '../../app/use-action'
import { useOperation } from '../../app/use-operation'
import { ErrorNotice } from '../../components/ErrorNotice'

/** Creates an instance with the name given (and for the chosen tokens), then opens its linking. */
export function CreateInstanceForm() {
  const api = useApi()
  const creation = useAction()
  const [name, setName] = useState('')
  const [tokens] = useOperation((client) => client.call<TokenList>('admin/tokens'), 'admin/tokens')
  const choosable =
    tokens.status === 'ready' ? tokens.data.tokens.filter((token) => token.reach === 'chosen') : []
  const [forTokens, setForTokens] = useState<string[]>([])

  const create = async (event: FormEvent) => {
    event.preventDefault()
    const created = await creation.run(() =>
      api.call<{ instance_id: string }>('create_instance', {
        ...(name.trim() && { name: name.trim() }),
        ...(forTokens.length && { token_ids: forTokens }),
      }),
    )
    if (created) window.location.hash = hrefFor('instances', created.instance_id, 'link')
  }

  return (
    <form
      className="create-instance"
      onSubmit={(event) => void create(event)}
      aria-label="Create an instance"
    >
      <div className="inline-form">
        <label htmlFor="create-instance-name">Name</label>
        <input
          id="create-instance-name"
          value={name}
          maxLength={200}
          placeholder="e.g. Support, Sales Berlin"
          onChange={(event) => setName(event.target.value)}
        />
        <button type="submit" className="primary" disabled={!!creation.busy}>
          {creation.busy ? 'Creating…' : 'Create instance'}
        </button>
      </div>
      <fieldset className="create-for">
        <legend>Who may use a new instance</legend>
        <p className="hint">
          Tokens reaching all instances always may (such as the server&apos;s{' '}
          <code>LINKDESK_ACCESS_TOKEN</code>).
          {choosable.length ? ' Also:' : ' Tokens with a chosen reach can be given it on its page later.'}
        </p>
        {choosable.map((token) => (
          <div className="field-inline" key={token.id}>
            <input
              id={`create-for-${token.id}`}
              type="checkbox"
              checked={forTokens.includes(token.id)}
              onChange={(event) =>
                setForTokens((current) =>
                  event.target.checked ? [...current, token.id] : current.filter((id) => id !== token.id),
                )
              }
            />
            <label htmlFor={`create-for-${token.id}`}>{token.label}</label>
          </div>
        ))}
      </fieldset>
      {creation.error ? <ErrorNotice error={creation.error} context="Could not create an instance" /> : null}
    </form>
  )
}
