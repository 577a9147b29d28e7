import { type FormEvent, useEffect, useState } from 'react'
import { logInWithToken, type SessionEnvironment, type SessionResult } from '../auth/session'
import { useAction } from './use-action'
import { ErrorNotice } from '../components/ErrorNotice'
import './LoginRequired.css'

/** Shown in a browser without a session: the login URL the server printed, or an access token. */
export function LoginRequired({
  problem,
  environment,
  onLoggedIn,
}: {
  problem?: string
  environment: SessionEnvironment
  onLoggedIn(result: SessionResult): void
}) {
  const [token, setToken] = useState('')
  const login = useAction()
  useEffect(() => {
    // Pasting the login URL into this tab only changes the hash, which loads nothing: start over with it.
    const followLogin = () => {
      if (window.location.hash.startsWith('#login=')) window.location.reload()
    }
    window.addEventListener('hashchange', followLogin)
    return () => window.removeEventListener('hashchange', followLogin)
  }, [])
  const submit = async (event: FormEvent) => {
    event.preventDefault()
    const result = await login.run(() => logInWithToken(environment, token.trim()))
    if (result) {
      window.location.hash = '#/instances'
      onLoggedIn(result)
    }
  }
  return (
    <main className="login-required">
      <h1>Log in to Linkdesk</h1>
      {problem ? (
        <p className="notice notice-error" role="alert">
          {problem}
        </p>
      ) : null}
      <p>
        Open the login URL that the server printed when it started (the line starting with{' '}
        <code>ui-login:</code>
        ). Each login URL works once; the login then holds in every tab of this browser, across server
        restarts, for 30 days or until you log out.
      </p>
      <form
        className="stack"
        onSubmit={(event) => void submit(event)}
        aria-label="Log in with an access token"
      >
        <div className="field">
          <label htmlFor="login-token">Or an access token</label>
          <input
            id="login-token"
            type="password"
            autoComplete="off"
            value={token}
            onChange={(event) => setToken(event.target.value)}
            aria-describedby="login-token-hint"
          />
          <p id="login-token-hint" className="hint">
            One that reaches all instances and holds the admin scope, such as the server&apos;s{' '}
            <code>LINKDESK_ACCESS_TOKEN</code>.
          </p>
        </div>
        <div className="actions">
          <button type="submit" className="primary" disabled={login.busy !== null || token.trim() === ''}>
            {login.busy ? 'Logging in…' : 'Log in'}
          </button>
        </div>
        {login.error ? <ErrorNotice error={login.error} context="Not logged in" /> : null}
      </form>
      <p>
        If the login URL was already used, restart the server with <code>npm run serve</code> to get a new
        one. In the desktop app, the window logs in by itself.
      </p>
    </main>
  )
}
