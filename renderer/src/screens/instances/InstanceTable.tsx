import type { InstanceSummary } from '../../api/types'
import { hrefFor } from '../../app/routes'
import { instanceLabel } from './instance-label'
import { StateBadge } from './StateBadge'

interface InstanceTableProps {
  instances: readonly InstanceSummary[]
  /** The ids chosen for a bulk action. */
  selected: ReadonlySet<string>
  onSelect(selected: ReadonlySet<string>): void
}

/** The instances one row each: name, account, state and id, with a box to choose rows for a bulk action. */
export function InstanceTable({ instances, selected, onSelect }: InstanceTableProps) {
  const allChosen = instances.length > 0 && instances.every((instance) => selected.has(instance.instance_id))
  const toggle = (ids: readonly string[], on: boolean) => {
    const next = new Set(selected)
    for (const id of ids) {
      if (on) next.add(id)
      else next.delete(id)
    }
    onSelect(next)
  }
  return (
    <div className="instance-table-wrap">
      <table className="table instance-table" aria-label="Instances">
        <thead>
          <tr>
            <th scope="col">
              <input
                type="checkbox"
                aria-label="Choose every instance shown"
                checked={allChosen}
                onChange={(event) =>
                  toggle(
                    instances.map((instance) => instance.instance_id),
                    event.target.checked,
                  )
                }
              />
            </th>
            <th scope="col">Name</th>
            <th scope="col">Account</th>
            <th scope="col">State</th>
            <th scope="col">Instance id</th>
          </tr>
        </thead>
        <tbody>
          {instances.map((instance) => {
            const id = instance.instance_id
            const account = instance.account
            return (
              <tr key={id}>
                <td>
                  <input
                    type="checkbox"
                    aria-label={`Choose ${instanceLabel(instance)}`}
                    checked={selected.has(id)}
                    onChange={(event) => toggle([id], event.target.checked)}
                  />
                </td>
                <th scope="row">
                  <a href={hrefFor('instances', id)}>{instance.name ?? 'Unnamed'}</a>
                </th>
                <td>
                  {account ? `${account.name ? `${account.name} ` : ''}+${account.number}` : 'None linked'}
                </td>
                <td>
                  <StateBadge state={instance.state} cause={instance.cause} />
                </td>
                <td>
                  <code>{id}</code>
                </td>
              </tr>
            )
          })}
        </tbody>
      </table>
    </div>
  )
}
