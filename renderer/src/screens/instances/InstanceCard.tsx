import type { InstanceSummary } from '../../api/types'
import { StateBadge } from './StateBadge'

/** One instance: its id, state and account, when linked. */
export function InstanceCard({ instance }: { instance: InstanceSummary }) {
  const account = instance.account
  return (
    <li className="card">
      <div className="card-header">
        {account?.avatar ? (
          <img className="avatar" src={account.avatar} alt="" width={40} height={40} />
        ) : null}
        <div>
          <h2 className="card-title">{account?.name ?? 'Not linked'}</h2>
          <p className="muted">{account?.id ? account.id.split(/[:@]/)[0] : 'No account yet'}</p>
        </div>
        <StateBadge state={instance.state} />
      </div>
      <p className="muted">
        Instance id <code>{instance.instance_id}</code>
      </p>
    </li>
  )
}
