import './TokenAccessFields.css'
import type { InstanceSummary, TokenInfo } from '../../api/types'
import { instanceLabel } from '../instances/instance-label'

/** A token's reach, scopes and chosen instances, as a form edits them. */
export interface TokenAccess {
  reach: TokenInfo['reach']
  scopes: TokenInfo['scopes']
  instanceIds: string[]
}

export const SCOPE_CHOICES: ReadonlyArray<{ scope: TokenInfo['scopes'][number]; hint: string }> = [
  { scope: 'read', hint: 'lists, chats, the event log and stream' },
  { scope: 'send', hint: 'messages, reactions, read receipts, uploads' },
  { scope: 'manage', hint: 'create, link and change instances, groups, webhooks' },
  { scope: 'admin', hint: 'tokens and who may use an instance' },
]

/** The reach and scopes a token would get, with the instances to choose when its reach is chosen. */
export function TokenAccessFields({
  idPrefix,
  value,
  instances,
  onChange,
}: {
  idPrefix: string
  value: TokenAccess
  instances: readonly InstanceSummary[]
  onChange(next: TokenAccess): void
}) {
  const toggle = <T,>(list: readonly T[], item: T, on: boolean): T[] =>
    on ? [...list.filter((other) => other !== item), item] : list.filter((other) => other !== item)
  return (
    <div className="token-access">
      <fieldset>
        <legend>Instances it reaches</legend>
        <label>
          <input
            type="radio"
            name={`${idPrefix}-reach`}
            checked={value.reach === 'all'}
            onChange={() => onChange({ ...value, reach: 'all' })}
          />
          All instances, present and future
        </label>
        <label>
          <input
            type="radio"
            name={`${idPrefix}-reach`}
            checked={value.reach === 'chosen'}
            onChange={() => onChange({ ...value, reach: 'chosen' })}
          />
          Chosen instances (and those it creates)
        </label>
        {value.reach === 'chosen' ? (
          instances.length === 0 ? (
            <p className="hint">No instances yet: it reaches the ones it creates.</p>
          ) : (
            <ul className="choices" aria-label="Chosen instances">
              {instances.map((instance) => (
                <li key={instance.instance_id}>
                  <label>
                    <input
                      type="checkbox"
                      checked={value.instanceIds.includes(instance.instance_id)}
                      onChange={(event) =>
                        onChange({
                          ...value,
                          instanceIds: toggle(value.instanceIds, instance.instance_id, event.target.checked),
                        })
                      }
                    />
                    {instanceLabel(instance)}
                  </label>
                </li>
              ))}
            </ul>
          )
        ) : null}
      </fieldset>
      <fieldset>
        <legend>What it may do</legend>
        {SCOPE_CHOICES.map(({ scope, hint }) => (
          <label key={scope}>
            <input
              type="checkbox"
              checked={value.scopes.includes(scope)}
              onChange={(event) =>
                onChange({ ...value, scopes: toggle(value.scopes, scope, event.target.checked) })
              }
            />
            {scope} <span className="hint">({hint})</span>
          </label>
        ))}
      </fieldset>
    </div>
  )
}

/** The token's reach and scopes in words, for its row. */
export function describeAccess(token: TokenInfo, instances: readonly InstanceSummary[]): string {
  const reach =
    token.reach === 'all'
      ? 'All instances'
      : token.instance_ids.length === 0
        ? 'No instances yet'
        : token.instance_ids
            .map((id) => {
              const instance = instances.find((candidate) => candidate.instance_id === id)
              return instance ? instanceLabel(instance) : id
            })
            .join(', ')
  return `${reach} · ${token.scopes.join(', ')}`
}

/** The parameters of admin/tokens/create and admin/tokens/access (the chosen instances stay kept under all). */
export function accessParams(access: TokenAccess): Record<string, unknown> {
  return { reach: access.reach, scopes: access.scopes, instance_ids: access.instanceIds }
}
