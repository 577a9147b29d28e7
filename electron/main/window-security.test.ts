import assert from 'node:assert/strict'
import { EventEmitter } from 'node:events'
import { describe, test } from 'node:test'
import type { HandlerDetails } from 'electron'
import {
  type GuardedContents,
  type GuardedSession,
  WINDOW_CSP,
  denyPermissions,
  enforceCsp,
  guardWebContents,
  secureWebPreferences,
} from './window-security'

const APP = 'http://127.0.0.1:8686'

/** A WebContents stand-in: emits navigation events the way Electron does and keeps the window-open handler. */
class FakeContents extends EventEmitter {
  openHandler?: (details: HandlerDetails) => { action: 'allow' | 'deny' }

  setWindowOpenHandler(handler: (details: HandlerDetails) => { action: 'allow' | 'deny' }): void {
    this.openHandler = handler
  }

  /** Fires `name` like Electron and answers whether the navigation may go ahead. */
  attempt(name: 'will-navigate' | 'will-redirect' | 'will-attach-webview', url: string): boolean {
    let prevented = false
    this.emit(name, { preventDefault: () => (prevented = true) }, url)
    return !prevented
  }

  open(url: string) {
    return this.openHandler?.({ url } as HandlerDetails)
  }
}

function guarded() {
  const contents = new FakeContents()
  const opened: string[] = []
  guardWebContents(contents as unknown as GuardedContents, {
    appOrigin: APP,
    openExternal: (url) => opened.push(url),
  })
  return { contents, opened }
}

describe('window security', () => {
  test('the renderer is isolated and sandboxed, without Node, with web security on', () => {
    const prefs = secureWebPreferences('/app/out/preload/index.cjs')
    assert.equal(prefs.contextIsolation, true)
    assert.equal(prefs.sandbox, true)
    assert.equal(prefs.nodeIntegration, false)
    assert.equal(prefs.nodeIntegrationInSubFrames, false)
    assert.equal(prefs.webSecurity, true)
    assert.equal(prefs.allowRunningInsecureContent, false)
    assert.equal(prefs.webviewTag, false)
    assert.equal(prefs.preload, '/app/out/preload/index.cjs')
  })

  test('the window may move within the app but not navigate away; web links go to the system browser', () => {
    const { contents, opened } = guarded()
    assert.equal(contents.attempt('will-navigate', `${APP}/#/tokens`), true)
    assert.equal(contents.attempt('will-navigate', 'https://example.com/phish'), false)
    assert.equal(
      contents.attempt('will-redirect', 'http://127.0.0.1:9999/'),
      false,
      'another port is another origin',
    )
    assert.equal(contents.attempt('will-navigate', 'file:///etc/passwd'), false)
    assert.deepEqual(opened, ['https://example.com/phish', 'http://127.0.0.1:9999/'])
  })

  test('new windows are never created; http links open in the browser, other schemes nowhere', () => {
    const { contents, opened } = guarded()
    assert.deepEqual(contents.open(`${APP}/api/v1/docs`), { action: 'deny' })
    assert.deepEqual(contents.open('javascript:alert(1)'), { action: 'deny' })
    assert.deepEqual(contents.open('file:///home/user/.ssh/id_rsa'), { action: 'deny' })
    assert.deepEqual(contents.open('not a url'), { action: 'deny' })
    assert.deepEqual(opened, [`${APP}/api/v1/docs`])
  })

  test('webviews cannot be attached', () => {
    const { contents } = guarded()
    assert.equal(contents.attempt('will-attach-webview', `${APP}/`), false)
  })
})

describe('window session', () => {
  type PermissionRequest = (
    contents: unknown,
    permission: string,
    callback: (granted: boolean) => void,
  ) => void
  type PermissionCheck = (contents: unknown, permission: string) => boolean
  type Headers = Record<string, string[]>
  type HeadersListener = (
    details: { url: string; responseHeaders?: Headers },
    callback: (response: { responseHeaders?: Headers }) => void,
  ) => void

  /** A Session stand-in that keeps the handlers the guard installs, so the test can call them as Electron would. */
  function guardedSession() {
    const installed: { request?: PermissionRequest; check?: PermissionCheck; headers?: HeadersListener } = {}
    const session: GuardedSession = {
      setPermissionRequestHandler: (handler) => (installed.request = handler),
      setPermissionCheckHandler: (handler) => (installed.check = handler),
      webRequest: { onHeadersReceived: (listener) => (installed.headers = listener) },
    }
    denyPermissions(session)
    enforceCsp(session, APP)
    return installed
  }

  function headersFor(
    session: ReturnType<typeof guardedSession>,
    url: string,
    responseHeaders: Record<string, string[]>,
  ) {
    let result: { responseHeaders?: Record<string, string[]> } | undefined
    session.headers?.({ url, responseHeaders }, (response) => (result = response))
    return result
  }

  test("the app's pages get the window's CSP, replacing a weaker one from the server", () => {
    const session = guardedSession()
    const answer = headersFor(session, `${APP}/`, {
      'content-security-policy': ["default-src *; script-src 'unsafe-inline'"],
      'content-type': ['text/html'],
    })
    assert.deepEqual(answer?.responseHeaders, {
      'content-type': ['text/html'],
      'Content-Security-Policy': [WINDOW_CSP],
    })
    assert.match(WINDOW_CSP, /default-src 'self'/)
    assert.doesNotMatch(WINDOW_CSP, /script-src[^;]*unsafe/)
  })

  test('responses from other origins are left untouched', () => {
    const session = guardedSession()
    assert.deepEqual(headersFor(session, 'https://example.com/', { a: ['b'] }), {})
  })

  test('permission prompts are refused, except writing to the clipboard and notifications', () => {
    const session = guardedSession()
    const asked = (permission: string) => {
      let granted: boolean | undefined
      session.request?.(undefined, permission, (answer) => (granted = answer))
      return granted
    }
    assert.equal(asked('media'), false)
    assert.equal(asked('openExternal'), false)
    assert.equal(asked('clipboard-sanitized-write'), true)
    assert.equal(asked('notifications'), true)
    assert.equal(session.check?.(undefined, 'notifications'), true)
    assert.equal(session.check?.(undefined, 'geolocation'), false)
  })
})
