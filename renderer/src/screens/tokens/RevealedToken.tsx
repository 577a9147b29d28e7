import { useEffect, useRef } from 'react'
import type { CreatedToken } from '../../api/types'
import { CopyButton } from '../../components/CopyButton'
import './RevealedToken.css'

/** A new token's value, shown this once with a copy button. */
export function RevealedToken({ created, onDone }: { created: CreatedToken; onDone(): void }) {
  const heading = useRef<HTMLHeadingElement>(null)
  useEffect(() => heading.current?.focus(), [created])
  return (
    <div className="revealed" role="region" aria-labelledby="revealed-title">
      <h2 id="revealed-title" ref={heading} tabIndex={-1}>
        Token “{created.info.label}” created
      </h2>
      <p>Copy it now: Linkdesk keeps only a hash and cannot show it again.</p>
      <div className="token-value">
        <label htmlFor="revealed-token" className="visually-hidden">
          New token value
        </label>
        <input
          id="revealed-token"
          readOnly
          value={created.token}
          onFocus={(event) => event.target.select()}
        />
        <CopyButton text={created.token} label="token" />
        <button type="button" onClick={onDone}>
          Done
        </button>
      </div>
    </div>
  )
}
