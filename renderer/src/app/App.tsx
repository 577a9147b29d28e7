import { use, useCallback, useState } from 'react'
import type { SessionResult } from '../auth/session'
import { LoginRequired } from './LoginRequired'
import { Shell } from './Shell'

/** The whole UI: the logged-in window, or how to log in. */
export function App({ session, onSignedOut }: { session: Promise<SessionResult>; onSignedOut(): void }) {
  const initial = use(session)
  const [result, setResult] = useState<SessionResult>(initial)
  const signOut = useCallback(
    (problem: string) => {
      onSignedOut()
      setResult({ kind: 'login-required', problem })
    },
    [onSignedOut],
  )
  if (result.kind === 'login-required') return <LoginRequired problem={result.problem} />
  return <Shell session={result.session} onSignedOut={signOut} />
}
