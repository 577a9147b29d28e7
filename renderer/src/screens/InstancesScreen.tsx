import { useState } from 'react'
import type { TokenList } from '../api/types'
import { useApi } from '../app/api-context'
import { hrefFor } from '../app/routes'
import { useAction } from '../app/use-action'
import { useOperation } from '../app/use-operation'
import { EmptyState } from '../components/EmptyState'
import { ErrorNotice } from '../components/ErrorNotice'
import { ScreenHeader } from '../components/ScreenHeader'
import { InstanceCard } from './instances/InstanceCard'
import { useInstances } from './instances/use-instances'

/** The instances with their live state; create a new one and go straight to linking it. */
export function InstancesScreen() {
  const api = useApi()
  const [list, reload] = useInstances()
  const creation = useAction()
  const [tokens] = useOperation((client) => client.call<TokenList>('admin/tokens'), 'admin/tokens')
  const choosable =
    tokens.status === 'ready' ? tokens.data.tokens.filter((token) => token.reach === 'chosen') : []
  const [forTokens, setForTokens] = useState<string[]>([])

  const create = async () => {
    const created = await creation.run(() =>
      api.call<{ instance_id: string }>('create_instance', forTokens.length ? { token_ids: forTokens } : {}),
    )
    if (created) window.location.hash = hrefFor('instances', created.instance_id, 'link')
  }

  return (
    <section aria-labelledby="instances-title">
      <ScreenHeader
        id="instances-title"
        title="Instances"
        lead="Each instance is one WhatsApp account linked to this computer as a linked device. States update live."
      >
        <button type="button" className="primary" onClick={() => void create()} disabled={!!creation.busy}>
          {creation.busy ? 'Creating…' : 'Create instance'}
        </button>
      </ScreenHeader>
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
      {list.status === 'loading' ? <p className="loading">Loading instances…</p> : null}
      {list.status === 'failed' ? (
        <ErrorNotice error={list.error} context="Could not load the instances" />
      ) : null}
      {list.status === 'ready' && list.data.length === 0 ? (
        <EmptyState title="No instances yet">
          <p>
            Create an instance, then scan its QR code with WhatsApp on your phone (Settings → Linked devices →
            Link a device). Scripts can create them too with <code>create_instance</code>.
          </p>
        </EmptyState>
      ) : null}
      {list.status === 'ready' && list.data.length > 0 ? (
        <ul className="cards" aria-label="Instances">
          {list.data.map((instance) => (
            <InstanceCard key={instance.instance_id} instance={instance} onChanged={() => void reload()} />
          ))}
        </ul>
      ) : null}
    </section>
  )
}
