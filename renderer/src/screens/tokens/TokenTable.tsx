import type { InstanceSummary, TokenInfo } from '../../api/types'
import { TokenRow } from './TokenRow'

/** The tokens, oldest first, each with its reach and scopes. */
export function TokenTable({
  tokens,
  instances,
  onChanged,
}: {
  tokens: TokenInfo[]
  instances: readonly InstanceSummary[]
  onChanged(): void
}) {
  return (
    <table className="table">
      <caption className="visually-hidden">Access tokens</caption>
      <thead>
        <tr>
          <th scope="col">Label</th>
          <th scope="col">Id</th>
          <th scope="col">Reach and scopes</th>
          <th scope="col">Created</th>
          <th scope="col">Source</th>
          <th scope="col">
            <span className="visually-hidden">Actions</span>
          </th>
        </tr>
      </thead>
      <tbody>
        {tokens.map((token) => (
          <TokenRow key={token.id} token={token} instances={instances} onChanged={onChanged} />
        ))}
      </tbody>
    </table>
  )
}
