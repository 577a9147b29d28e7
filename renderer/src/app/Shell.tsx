import { type ReactNode, useEffect, useMemo, useRef } from 'react'
import { ApiError } from '../api/api-error'
import { type ApiClient, createApiClient } from '../api/client'
import { EventFeed } from '../api/event-feed'
import type { SettingsAnswer } from '../api/types'
import { logOut, type Session, type SessionEnvironment } from '../auth/session'
import { ApiContext } from './api-context'
import { FeedContext } from './feed-context'
import { ChatNotifications } from '../screens/chats/ChatNotifications'
import { ScreenFor } from './ScreenFor'
import { ServiceContext } from './service-context'
import { Sidebar } from './Sidebar'
import { useHashLocation } from './use-hash-route'
import { useOperation } from './use-operation'
import './Shell.css'

interface ShellProps {
  session: Session
  environment: SessionEnvironment
  /** Called when the server stops accepting this window's credential, or at log-out. */
  onSignedOut(problem?: string): void
}

/** The API client every screen uses: signs the window out when the server stops accepting its credential. */
function useSignedApi(session: Session, onSignedOut: (problem: string) => void): ApiClient {
  return useMemo<ApiClient>(() => {
    const client = createApiClient(session.apiBase, session.uiToken)
    const guard = async <T,>(work: () => Promise<T>): Promise<T> => {
      try {
        return await work()
      } catch (error) {
        if (error instanceof ApiError && error.isUnauthorized) {
          onSignedOut(
            session.source === 'desktop'
              ? 'The server no longer accepts this window: restart Linkdesk.'
              : 'This login has ended (logged out, or past its 30 days): log in again.',
          )
        }
        throw error
      }
    }
    return {
      apiBase: client.apiBase,
      call: (operation, params) => guard(() => client.call(operation, params)),
      request: (method, path, body) => guard(() => client.request(method, path, body)),
      fetchBlob: client.fetchBlob,
      streamUrl: client.streamUrl,
    }
  }, [session, onSignedOut])
}

/** The logged-in window: sidebar, the current screen, the API client, the live event feed. */
export function Shell({ session, environment, onSignedOut }: ShellProps) {
  const { route, subpath, query } = useHashLocation()
  const main = useRef<HTMLElement>(null)
  const api = useSignedApi(session, onSignedOut)
  const feed = useMemo(() => new EventFeed(api), [api])
  useEffect(() => {
    void feed.start()
    return () => feed.stop()
  }, [feed])
  const first = useRef(true)
  useEffect(() => {
    // Screen readers and keyboard users land on the new screen's heading, not on the link they left.
    if (first.current) {
      first.current = false
      return
    }
    main.current?.querySelector<HTMLElement>('h1')?.focus()
  }, [route, subpath.length])

  return (
    <ApiContext.Provider value={api}>
      <FeedContext.Provider value={feed}>
        <ServiceProvider>
          <ChatNotifications />
          <div className="layout">
            <button type="button" className="skip-link" onClick={() => main.current?.focus()}>
              Skip to content
            </button>
            <Sidebar
              route={route}
              docsUrl={`${session.apiBase}/docs`}
              onLogOut={
                session.source === 'browser'
                  ? () => void logOut(environment).then(() => onSignedOut('Logged out.'))
                  : undefined
              }
            />
            <main ref={main} tabIndex={-1} className="content">
              <ScreenFor route={route} subpath={subpath} query={query} session={session} />
            </main>
          </div>
        </ServiceProvider>
      </FeedContext.Provider>
    </ApiContext.Provider>
  )
}

/** Reads the server's settings once and hands them to every screen (null until read, or if unreadable). */
function ServiceProvider({ children }: { children: ReactNode }) {
  const [settings] = useOperation((api) => api.call<SettingsAnswer>('settings'), 'settings')
  return (
    <ServiceContext.Provider value={settings.status === 'ready' ? settings.data.settings : null}>
      {children}
    </ServiceContext.Provider>
  )
}
