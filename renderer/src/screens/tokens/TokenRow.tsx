import { type FormEvent, useState } from 'react'
import { useApi } from '../../app/api-context'
import { useAction } from '../../app/use-action'
import type { InstanceSummary, TokenInfo } from '../../api/types'
import { ConfirmDialog } from '../../components/ConfirmDialog'
import { ErrorNotice } from '../../components/ErrorNotice'
import { accessParams, describeAccess, type TokenAccess, TokenAccessFields } from './TokenAccessFields'
import './TokenRow.css'

const SOURCES = { env: 'LINKDESK_ACCESS_TOKEN', ui: 'Created here' } as const

/** One token: its label (renamable in place), its reach and scopes (editable), when and how it was made, revoke. */
export function TokenRow({
  token,
  instances,
  onChanged,
}: {
  token: TokenInfo
  instances: readonly InstanceSummary[]
  onChanged(): void
}) {
  const api = useApi()
  const [mode, setMode] = useState<'view' | 'rename' | 'access' | 'confirm-revoke'>('view')
  const [label, setLabel] = useState(token.label)
  const current: TokenAccess = { reach: token.reach, scopes: token.scopes, instanceIds: token.instance_ids }
  const [access, setAccess] = useState<TokenAccess>(current)
  const action = useAction()

  const run = async (operation: string, params: Record<string, unknown>) => {
    const done = await action.run(async () => {
      await api.call(operation, params)
      return true
    })
    if (!done) return
    setMode('view')
    onChanged()
  }
  const rename = (event: FormEvent) => {
    event.preventDefault()
    void run('admin/tokens/label', { token_id: token.id, label: label.trim() })
  }

  return (
    <tr>
      <td>
        {mode === 'rename' ? (
          <form className="row-form" onSubmit={rename}>
            <label htmlFor={`label-${token.id}`} className="visually-hidden">
              New label for {token.label}
            </label>
            <input
              id={`label-${token.id}`}
              value={label}
              maxLength={80}
              required
              autoFocus
              onChange={(event) => setLabel(event.target.value)}
            />
            <button type="submit" className="primary" disabled={label.trim() === ''}>
              Save
            </button>
            <button type="button" onClick={() => setMode('view')}>
              Cancel
            </button>
          </form>
        ) : (
          token.label
        )}
        {action.error ? <ErrorNotice error={action.error} /> : null}
      </td>
      <td>
        <code>{token.id}</code>
      </td>
      <td>
        {mode === 'access' ? (
          <form
            className="stack"
            aria-label={`Access of ${token.label}`}
            onSubmit={(event) => {
              event.preventDefault()
              void run('admin/tokens/access', { token_id: token.id, ...accessParams(access) })
            }}
          >
            <TokenAccessFields
              idPrefix={`access-${token.id}`}
              value={access}
              instances={instances}
              onChange={setAccess}
            />
            <div className="actions">
              <button type="submit" className="primary" disabled={access.scopes.length === 0}>
                Save access
              </button>
              <button type="button" onClick={() => setMode('view')}>
                Cancel
              </button>
            </div>
          </form>
        ) : (
          describeAccess(token, instances)
        )}
      </td>
      <td>{new Date(token.createdAt).toLocaleString()}</td>
      <td>{SOURCES[token.source]}</td>
      <td className="row-actions">
        <button type="button" onClick={() => setMode('rename')} aria-label={`Rename ${token.label}`}>
          Rename
        </button>
        <button
          type="button"
          onClick={() => {
            setAccess(current)
            setMode('access')
          }}
          aria-label={`Edit access of ${token.label}`}
        >
          Access
        </button>
        <button
          type="button"
          className="danger"
          onClick={() => setMode('confirm-revoke')}
          aria-label={`Revoke ${token.label}`}
        >
          Revoke
        </button>
        {mode === 'confirm-revoke' ? (
          <ConfirmDialog
            title={`Revoke “${token.label}”?`}
            confirmLabel="Revoke token"
            onConfirm={() => void run('admin/tokens/revoke', { token_id: token.id })}
            onCancel={() => setMode('view')}
          >
            <p>
              Scripts using this token get <code>401 unauthorized</code> from now on, and its instances can no
              longer be reached with it. This cannot be undone.
            </p>
          </ConfirmDialog>
        ) : null}
      </td>
    </tr>
  )
}
