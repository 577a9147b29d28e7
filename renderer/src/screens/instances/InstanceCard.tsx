import type { InstanceSummary } from '../../api/types'
import { AccountAvatar } from './AccountAvatar'
import { StateBadge, nextStep } from './StateBadge'

/** One instance: its account when linked, its true state and why, and what to do next. */
export function InstanceCard({ instance }: { instance: InstanceSummary }) {
  const account = instance.account ?? null
  const titleId = `instance-${instance.instance_id}`
  return (
    <li className="card" aria-labelledby={titleId}>
      <div className="card-header">
        <AccountAvatar account={account} />
        <div>
          <h2 className="card-title" id={titleId}>
            {account ? account.name || `+${account.number}` : 'No account linked'}
          </h2>
          {account ? <p className="muted">+{account.number}</p> : null}
        </div>
        <StateBadge state={instance.state} cause={instance.cause} />
      </div>
      <p className="next-step">{nextStep(instance.state)}</p>
      {instance.last_error ? (
        <p className="muted">
          Last error: {instance.last_error.message} <code>{instance.last_error.cause}</code>
        </p>
      ) : null}
      <p className="muted">
        Instance id <code>{instance.instance_id}</code>
      </p>
    </li>
  )
}
