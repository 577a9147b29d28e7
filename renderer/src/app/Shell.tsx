import { useEffect, useMemo, useRef } from 'react'
import { ApiError } from '../api/api-error'
import { type ApiClient, createApiClient } from '../api/client'
import type { Session } from '../auth/session'
import { ApiContext } from './api-context'
import { ScreenFor } from './ScreenFor'
import { Sidebar } from './Sidebar'
import { useHashRoute } from './use-hash-route'

interface ShellProps {
  session: Session
  /** Called when the server stops accepting this window's credential. */
  onSignedOut(problem: string): void
}

/** The logged-in window: sidebar, the current screen, and the API client every screen uses. */
export function Shell({ session, onSignedOut }: ShellProps) {
  const route = useHashRoute()
  const main = useRef<HTMLElement>(null)
  const api = useMemo<ApiClient>(() => {
    const client = createApiClient(session.apiBase, session.uiToken)
    return {
      apiBase: client.apiBase,
      call: async (operation, params) => {
        try {
          return await client.call(operation, params)
        } catch (error) {
          if (error instanceof ApiError && error.isUnauthorized) {
            onSignedOut(
              'The server no longer accepts this login (it may have restarted): open a new login URL.',
            )
          }
          throw error
        }
      },
    }
  }, [session, onSignedOut])
  const first = useRef(true)
  useEffect(() => {
    // Screen readers and keyboard users land on the new screen's heading, not on the link they left.
    if (first.current) {
      first.current = false
      return
    }
    main.current?.querySelector<HTMLElement>('h1')?.focus()
  }, [route])

  return (
    <ApiContext.Provider value={api}>
      <div className="layout">
        <button type="button" className="skip-link" onClick={() => main.current?.focus()}>
          Skip to content
        </button>
        <Sidebar route={route} docsUrl={`${session.apiBase}/docs`} />
        <main ref={main} tabIndex={-1} className="content">
          <ScreenFor route={route} session={session} />
        </main>
      </div>
    </ApiContext.Provider>
  )
}
