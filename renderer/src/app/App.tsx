import { use, useCallback, useState } from 'react'
import type { SessionEnvironment, SessionResult } from '../auth/session'
import { LoginRequired } from './LoginRequired'
import { Shell } from './Shell'

/** The whole UI: the logged-in window, or how to log in. */
export function App({
  session,
  environment,
}: {
  session: Promise<SessionResult>
  environment: SessionEnvironment
}) {
  const initial = use(session)
  const [result, setResult] = useState<SessionResult>(initial)
  const signOut = useCallback((problem?: string) => setResult({ kind: 'login-required', problem }), [])
  if (result.kind === 'login-required') {
    return <LoginRequired problem={result.problem} environment={environment} onLoggedIn={setResult} />
  }
  return <Shell session={result.session} environment={environment} onSignedOut={signOut} />
}
