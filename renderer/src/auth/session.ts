import { ApiError } from '../api/api-error'
import { callOperation } from '../api/client'
import type { LoginAnswer } from '../api/types'
import type { LinkdeskBridge } from '../desktop-bridge'

/** How the window is authenticated: by the desktop preload or by a browser login. */
export interface Session {
  apiBase: string
  uiToken: string
  source: 'desktop' | 'browser'
}

export type SessionResult = { kind: 'ready'; session: Session } | { kind: 'login-required'; problem?: string }

const STORAGE_KEY = 'linkdesk.uiToken'

/** The browser environment the session is read from; the window's in the app, a stand-in in tests. */
export interface SessionEnvironment {
  bridge: LinkdeskBridge | undefined
  location: Pick<Location, 'hash' | 'origin' | 'pathname' | 'search'>
  history: Pick<History, 'replaceState'>
  storage: Pick<Storage, 'getItem' | 'setItem' | 'removeItem'>
  fetch: typeof fetch
}

export function browserEnvironment(): SessionEnvironment {
  return {
    bridge: window.linkdesk,
    location: window.location,
    history: window.history,
    storage: window.sessionStorage,
    fetch: (input, init) => window.fetch(input, init),
  }
}

function loginCode(hash: string): string | undefined {
  const match = /^#login=([A-Za-z0-9_-]+)$/.exec(hash)
  return match?.[1]
}

/**
 * Finds the UI credential: the preload's in the desktop app; otherwise a one-time `#login=<code>` in the URL,
 * exchanged for the credential and kept for this tab; otherwise the one this tab already holds.
 */
export async function resolveSession(env: SessionEnvironment): Promise<SessionResult> {
  if (env.bridge) {
    return {
      kind: 'ready',
      session: { apiBase: env.bridge.apiBase, uiToken: env.bridge.uiToken, source: 'desktop' },
    }
  }
  const apiBase = `${env.location.origin}/api/v1`
  const code = loginCode(env.location.hash)
  if (code) {
    // The code works once: take it out of the address bar and history before anything else.
    env.history.replaceState(null, '', `${env.location.pathname}${env.location.search}#/instances`)
    try {
      const answer = await callOperation<LoginAnswer>(apiBase, null, 'admin/session', { code }, env.fetch)
      env.storage.setItem(STORAGE_KEY, answer.ui_token)
      return { kind: 'ready', session: { apiBase, uiToken: answer.ui_token, source: 'browser' } }
    } catch (error) {
      const problem = error instanceof ApiError ? error.message : 'The login link could not be used.'
      return { kind: 'login-required', problem }
    }
  }
  const stored = env.storage.getItem(STORAGE_KEY)
  if (stored) return { kind: 'ready', session: { apiBase, uiToken: stored, source: 'browser' } }
  return { kind: 'login-required' }
}

/** Forgets this tab's credential, e.g. after the server stopped accepting it. */
export function forgetSession(env: Pick<SessionEnvironment, 'storage'>): void {
  env.storage.removeItem(STORAGE_KEY)
}
