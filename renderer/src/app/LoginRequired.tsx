import { useEffect } from 'react'
import './LoginRequired.css'

/** Shown in a browser without a credential: how to get the login URL. */
export function LoginRequired({ problem }: { problem?: string }) {
  useEffect(() => {
    // Pasting the login URL into this tab only changes the hash, which loads nothing: start over with it.
    const followLogin = () => {
      if (window.location.hash.startsWith('#login=')) window.location.reload()
    }
    window.addEventListener('hashchange', followLogin)
    return () => window.removeEventListener('hashchange', followLogin)
  }, [])
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
        ). Each login URL works once, in one browser tab.
      </p>
      <p>
        If it was already used, restart the server with <code>npm run serve</code> to get a new one. In the
        desktop app, the window logs in by itself.
      </p>
    </main>
  )
}
