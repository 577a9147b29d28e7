import { useState } from 'react'
import type { InstanceSummary } from '../../api/types'
import { useApi } from '../../app/api-context'
import { hrefFor } from '../../app/routes'
import { useAction } from '../../app/use-action'
import { ConfirmDialog } from '../../components/ConfirmDialog'
import { ErrorNotice } from '../../components/ErrorNotice'
import { instanceLabel } from './instance-label'
import './InstanceActions.css'

type Pending = 'reinitialize' | 'destroy' | 'delete_instance' | null

interface InstanceActionsProps {
  instance: InstanceSummary
  /** After a change; `replacedBy` is the new id after destroy; `deleted` after delete_instance. */
  onChanged(replacedBy?: string, deleted?: boolean): void
  /** Hides the "Open" link (in the detail view itself). */
  inDetail?: boolean
}

/** What can be done with an instance in its state; destructive actions ask first and name what is lost. */
export function InstanceActions({ instance, onChanged, inDetail }: InstanceActionsProps) {
  const api = useApi()
  const [pending, setPending] = useState<Pending>(null)
  const { busy, error, run: runAction } = useAction()
  const label = instanceLabel(instance)
  const id = instance.instance_id

  const run = async (operation: 'reconnect' | Exclude<Pending, null>) => {
    setPending(null)
    const answer = await runAction(
      () => api.call<{ instance_id?: string }>(operation, { instance_id: id }),
      operation,
    )
    if (answer)
      onChanged(operation === 'destroy' ? answer.instance_id : undefined, operation === 'delete_instance')
  }

  const unlinked = instance.state === 'idle' || instance.state === 'logged_out'
  return (
    <div className="instance-actions">
      <div className="row-actions">
        {!inDetail ? (
          <a className="button-link" href={hrefFor('instances', id)} aria-label={`Open ${label}`}>
            Open
          </a>
        ) : null}
        {unlinked ? (
          <a
            className="button-link primary"
            href={hrefFor('instances', id, 'link')}
            aria-label={`Link an account to ${label}`}
          >
            Link an account
          </a>
        ) : null}
        {instance.linked && instance.state !== 'connected' ? (
          <button type="button" onClick={() => void run('reconnect')} disabled={busy !== null}>
            {busy === 'reconnect' ? 'Reconnecting…' : 'Reconnect'}
          </button>
        ) : null}
        <button type="button" onClick={() => setPending('reinitialize')} disabled={busy !== null}>
          {busy === 'reinitialize' ? 'Reinitializing…' : 'Reinitialize'}
        </button>
        <button
          type="button"
          className="danger"
          onClick={() => setPending('destroy')}
          disabled={busy !== null}
        >
          {busy === 'destroy' ? 'Destroying…' : 'Destroy'}
        </button>
        <button
          type="button"
          className="danger"
          onClick={() => setPending('delete_instance')}
          disabled={busy !== null}
        >
          {busy === 'delete_instance' ? 'Deleting…' : 'Delete'}
        </button>
      </div>
      {error ? <ErrorNotice error={error} context={`Could not change ${label}`} /> : null}
      {pending === 'reinitialize' ? (
        <ConfirmDialog
          title={`Reinitialize ${label}?`}
          confirmLabel="Log out and reinitialize"
          onConfirm={() => void run('reinitialize')}
          onCancel={() => setPending(null)}
        >
          <p>
            The account is logged out and its credentials are wiped: it stops sending and receiving until
            someone scans a new QR code. The instance id, webhook and event log stay.
          </p>
        </ConfirmDialog>
      ) : null}
      {pending === 'destroy' ? (
        <ConfirmDialog
          title={`Destroy ${label}?`}
          confirmLabel="Destroy instance"
          onConfirm={() => void run('destroy')}
          onCancel={() => setPending(null)}
        >
          <p>
            The account is logged out and everything of this instance is deleted. Its id <code>{id}</code>{' '}
            stops working: scripts that use it get 404 and must use the new id that replaces it.
          </p>
        </ConfirmDialog>
      ) : null}
      {pending === 'delete_instance' ? (
        <ConfirmDialog
          title={`Delete ${label}?`}
          confirmLabel="Delete instance"
          onConfirm={() => void run('delete_instance')}
          onCancel={() => setPending(null)}
        >
          <p>
            The account is logged out and everything of this instance is deleted, with nothing in its place
            (unlike Destroy, which makes a new empty instance). Its id <code>{id}</code> stops working.
          </p>
        </ConfirmDialog>
      ) : null}
    </div>
  )
}
