import type { Event, HandlerDetails, WebContents, WebPreferences } from 'electron'
import { UI_CSP } from '../core'

/** The CSP the window enforces on everything it loads, whatever the server sends: the core's own. */
export const WINDOW_CSP = UI_CSP

/** The window's renderer settings: isolated, sandboxed, no Node, web security on; only the preload bridges. */
export function secureWebPreferences(preloadPath: string): WebPreferences {
  return {
    preload: preloadPath,
    contextIsolation: true,
    sandbox: true,
    nodeIntegration: false,
    nodeIntegrationInWorker: false,
    nodeIntegrationInSubFrames: false,
    webSecurity: true,
    allowRunningInsecureContent: false,
    webviewTag: false,
    navigateOnDragDrop: false,
    spellcheck: false,
  }
}

/** Whether `url` is on the window's own origin (the core's HTTP server). */
export function isAppUrl(url: string, appOrigin: string): boolean {
  try {
    return new URL(url).origin === appOrigin
  } catch {
    return false
  }
}

/** Links that may leave the app for the system browser: web pages and mail only, never files or schemes. */
export function isExternalLink(url: string): boolean {
  try {
    return ['https:', 'http:', 'mailto:'].includes(new URL(url).protocol)
  } catch {
    return false
  }
}

/** The parts of WebContents the guard uses, so a test can hand it a stand-in. */
export type GuardedContents = Pick<WebContents, 'on' | 'setWindowOpenHandler'>

export interface GuardOptions {
  /** e.g. http://127.0.0.1:8686: the only origin the window may show. */
  appOrigin: string
  /** Opens a URL in the system browser (shell.openExternal). */
  openExternal(url: string): void
}

/**
 * Keeps the window on the app: navigations away and new windows are refused, and links meant for the
 * world (the API docs, help pages) open in the system browser instead.
 */
export function guardWebContents(contents: GuardedContents, { appOrigin, openExternal }: GuardOptions): void {
  const leaveForBrowser = (url: string) => {
    if (isExternalLink(url)) openExternal(url)
  }
  contents.setWindowOpenHandler((details: HandlerDetails) => {
    leaveForBrowser(details.url)
    return { action: 'deny' }
  })
  const keepOnApp = (event: Event, url: string) => {
    if (isAppUrl(url, appOrigin)) return
    event.preventDefault()
    leaveForBrowser(url)
  }
  contents.on('will-navigate', keepOnApp)
  contents.on('will-redirect', keepOnApp)
  contents.on('will-attach-webview', (event) => event.preventDefault())
}

/** The parts of a Session the window uses: permission prompts and response headers. */
export type GuardedSession = {
  setPermissionRequestHandler(
    handler: (contents: unknown, permission: string, callback: (granted: boolean) => void) => void,
  ): void
  setPermissionCheckHandler(handler: (contents: unknown, permission: string) => boolean): void
  webRequest: {
    onHeadersReceived(
      listener: (
        details: { url: string; responseHeaders?: Record<string, string[]> },
        callback: (response: { responseHeaders?: Record<string, string[]> }) => void,
      ) => void,
    ): void
  }
}

/**
 * Clipboard writes are what the copy buttons need, notifications what the inbox raises for a new message (the
 * person turns them off in the window); nothing else is granted.
 */
const GRANTED_PERMISSIONS = new Set(['clipboard-sanitized-write', 'notifications'])

/** Refuses every permission prompt (camera, location, …) except writing to the clipboard and notifications. */
export function denyPermissions(
  session: Pick<GuardedSession, 'setPermissionRequestHandler' | 'setPermissionCheckHandler'>,
): void {
  session.setPermissionRequestHandler((_contents, permission, callback) =>
    callback(GRANTED_PERMISSIONS.has(permission)),
  )
  session.setPermissionCheckHandler((_contents, permission) => GRANTED_PERMISSIONS.has(permission))
}

/** Puts the window's CSP on every response from the app's origin, replacing whatever the server sent. */
export function enforceCsp(session: Pick<GuardedSession, 'webRequest'>, appOrigin: string): void {
  session.webRequest.onHeadersReceived((details, callback) => {
    if (!isAppUrl(details.url, appOrigin)) return callback({})
    const headers = { ...details.responseHeaders }
    for (const name of Object.keys(headers)) {
      if (name.toLowerCase() === 'content-security-policy') delete headers[name]
    }
    callback({ responseHeaders: { ...headers, 'Content-Security-Policy': [WINDOW_CSP] } })
  })
}
