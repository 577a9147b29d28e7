import type { InstanceSummary } from '../../api/types'
import { AccountAvatar } from './AccountAvatar'
import { InstanceActions } from './InstanceActions'
import { StateBadge, nextStep } from './StateBadge'
import './InstanceCard.css'

/** One instance: its account when linked, its true state and why, what to do next, and the actions. */
export function InstanceCard({ instance, onChanged }: { instance: InstanceSummary; onChanged(): void }) {
  const account = instance.account ?? null
  const titleId = `instance-${instance.instance_id}`
  return (
    <li className="card" aria-labelledby={titleId}>
      <div className="card-header">
        <AccountAvatar account={account} />
        <div>
          <h2 className="card-title" id={titleId}>
            {instance.name ?? (account ? account.name || `+${account.number}` : 'No account linked')}
          </h2>
          {instance.name ? (
            <p className="muted">
              {account ? `${account.name ? `${account.name} ` : ''}+${account.number}` : 'No account linked'}
            </p>
          ) : account ? (
            <p className="muted">+{account.number}</p>
          ) : null}
        </div>
        <StateBadge state={instance.state} cause={instance.cause} />
      </div>
      <p className="next-step">{nextStep(instance.state, instance.cause)}</p>
      {instance.last_error && instance.state !== 'connected' ? (
        <p className="muted">
          Last error: {instance.last_error.message} <code>{instance.last_error.cause}</code>
        </p>
      ) : null}
      <p className="muted">
        Instance id <code>{instance.instance_id}</code>
      </p>
      <InstanceActions instance={instance} onChanged={onChanged} />
    </li>
  )
}
