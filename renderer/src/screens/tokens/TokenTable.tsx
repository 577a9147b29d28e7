import type { TokenInfo } from '../../api/types'
import { TokenRow } from './TokenRow'

/** The tokens, oldest first. */
export function TokenTable({ tokens, onChanged }: { tokens: TokenInfo[]; onChanged(): void }) {
  return (
    <table className="table">
      <caption className="visually-hidden">Access tokens</caption>
      <thead>
        <tr>
          <th scope="col">Label</th>
          <th scope="col">Id</th>
          <th scope="col">Created</th>
          <th scope="col">Source</th>
          <th scope="col">
            <span className="visually-hidden">Actions</span>
          </th>
        </tr>
      </thead>
      <tbody>
        {tokens.map((token) => (
          <TokenRow key={token.id} token={token} onChanged={onChanged} />
        ))}
      </tbody>
    </table>
  )
}
