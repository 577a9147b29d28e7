import { useState } from 'react'
import { useOperation } from '../app/use-operation'
import type { CreatedToken, TokenList } from '../api/types'
import { EmptyState } from '../components/EmptyState'
import { ErrorNotice } from '../components/ErrorNotice'
import { ScreenHeader } from '../components/ScreenHeader'
import { CreateTokenForm } from './tokens/CreateTokenForm'
import { RevealedToken } from './tokens/RevealedToken'
import { TokenTable } from './tokens/TokenTable'
import { useInstances } from './instances/use-instances'

/** Access tokens for scripts: create with a label, reveal once, rename, revoke. */
export function TokensScreen({ apiBase }: { apiBase: string }) {
  const [list, reload] = useOperation((api) => api.call<TokenList>('admin/tokens'), 'admin/tokens')
  const [created, setCreated] = useState<CreatedToken | null>(null)
  const [instanceList] = useInstances()
  const instances = instanceList.status === 'ready' ? instanceList.data : []

  return (
    <section aria-labelledby="tokens-title">
      <ScreenHeader
        id="tokens-title"
        title="Access tokens"
        lead={
          <>
            Scripts on this computer send a token as <code>access_token</code> (or{' '}
            <code>Authorization: Bearer</code>) to <code>{apiBase}</code>. A token reaches all instances or
            the ones chosen for it (and those it creates), and may do what its scopes allow: read, send,
            manage, admin. Outside its scopes it gets <code>403 insufficient_scope</code>; an instance outside
            its reach answers <code>404 instance_not_found</code>.
          </>
        }
      />
      <CreateTokenForm
        instances={instances}
        onCreated={(token) => {
          setCreated(token)
          void reload()
        }}
      />
      {created ? <RevealedToken created={created} onDone={() => setCreated(null)} /> : null}
      {list.status === 'loading' ? <p className="loading">Loading tokens…</p> : null}
      {list.status === 'failed' ? (
        <ErrorNotice error={list.error} context="Could not load the tokens" />
      ) : null}
      {list.status === 'ready' && list.data.tokens.length === 0 ? (
        <EmptyState title="No access tokens yet">
          <p>
            Create one above, then give it to your script as <code>access_token</code>. You can also start the
            server with <code>LINKDESK_ACCESS_TOKEN=&lt;token&gt;</code> to register a token of your own (it
            reaches all instances with every scope until you change it here).
          </p>
        </EmptyState>
      ) : null}
      {list.status === 'ready' && list.data.tokens.length > 0 ? (
        <TokenTable tokens={list.data.tokens} instances={instances} onChanged={() => void reload()} />
      ) : null}
    </section>
  )
}
