import { ApiError } from '../api/api-error'
import { callOperation } from '../api/client'
import type { LoginAnswer } from '../api/types'
import type { LinkdeskBridge } from '../desktop-bridge'

/**
 * How the window is authenticated: the desktop app's preload hands it the credential (`uiToken`); a browser
 * holds a session cookie the server set at login (HttpOnly: no script reads it), so `uiToken` is null.
 */
export interface Session {
  apiBase: string
  uiToken: string | null
  source: 'desktop' | 'browser'
}

export type SessionResult = { kind: 'ready'; session: Session } | { kind: 'login-required'; problem?: string }

/** The browser environment the session is read from; the window's in the app, a stand-in in tests. */
export interface SessionEnvironment {
  bridge: LinkdeskBridge | undefined
  location: Pick<Location, 'hash' | 'origin' | 'pathname' | 'search'>
  history: Pick<History, 'replaceState'>
  fetch: typeof fetch
}

export function browserEnvironment(): SessionEnvironment {
  return {
    bridge: window.linkdesk,
    location: window.location,
    history: window.history,
    fetch: (input, init) => window.fetch(input, init),
  }
}

function loginCode(hash: string): string | undefined {
  const match = /^#login=([A-Za-z0-9_-]+)$/.exec(hash)
  return match?.[1]
}

function apiBaseOf(env: Pick<SessionEnvironment, 'location'>): string {
  return `${env.location.origin}/api/v1`
}

/**
 * Finds the window's credential: the preload's in the desktop app; otherwise a one-time `#login=<code>` in the
 * URL, exchanged for a session cookie; otherwise the session this browser already holds (any tab, any restart
 * of the server), which a call tells.
 */
export async function resolveSession(env: SessionEnvironment): Promise<SessionResult> {
  if (env.bridge) {
    return {
      kind: 'ready',
      session: { apiBase: env.bridge.apiBase, uiToken: env.bridge.uiToken, source: 'desktop' },
    }
  }
  const apiBase = apiBaseOf(env)
  const browser: SessionResult = { kind: 'ready', session: { apiBase, uiToken: null, source: 'browser' } }
  const code = loginCode(env.location.hash)
  if (code) {
    // The code works once: take it out of the address bar and history before anything else.
    env.history.replaceState(null, '', `${env.location.pathname}${env.location.search}#/instances`)
    try {
      await callOperation<LoginAnswer>(apiBase, null, 'admin/session', { code }, env.fetch)
      return browser
    } catch (error) {
      const problem = error instanceof ApiError ? error.message : 'The login link could not be used.'
      return { kind: 'login-required', problem }
    }
  }
  try {
    await callOperation(apiBase, null, 'settings', {}, env.fetch)
    return browser
  } catch (error) {
    if (error instanceof ApiError && error.isUnauthorized) return { kind: 'login-required' }
    // The server is not reachable right now: the window opens and its screens say so, and work once it is back.
    return browser
  }
}

/** Opens a session with an access token (reaching all instances, with the admin scope). */
export async function logInWithToken(env: SessionEnvironment, token: string): Promise<SessionResult> {
  const apiBase = apiBaseOf(env)
  await callOperation<LoginAnswer>(apiBase, null, 'admin/login', { token }, env.fetch)
  return { kind: 'ready', session: { apiBase, uiToken: null, source: 'browser' } }
}

/** Ends this browser's session (every tab): the server forgets it and clears its cookie. */
export async function logOut(env: SessionEnvironment): Promise<void> {
  await callOperation(apiBaseOf(env), null, 'admin/logout', {}, env.fetch)
}
