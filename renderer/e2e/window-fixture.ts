import assert from 'node:assert/strict'
import { after, before } from 'node:test'
import type { Page } from 'playwright-core'
import { launchBrowser, type TestBrowser } from './browser'
import { type HeadlessServer, startHeadlessServer } from './headless-server'
import { ensureRendererBuilt } from './renderer-build'
import { windowSessionHeaders } from './window-session'

/** An API answer as a test reads it. */
export interface Answer<T = any> {
  status: number
  body: T
}

/** One suite's window: the headless server, a browser logged in to it, and the API beside the window. */
export interface WindowUnderTest {
  readonly server: HeadlessServer
  readonly browser: TestBrowser
  /** The tab opened by the login URL, on the Instances screen. */
  readonly page: Page
  /** The window's own session, to call the API beside it as a script on the same machine would. */
  sessionHeaders(): Promise<Record<string, string>>
  /**
   * Calls `path` under the API base (an operation, or `sandbox/…` for the sandbox's control API) with the
   * window's session: a POST of `body` as JSON, or a GET when there is none (its query in `path`).
   */
  request<T = any>(path: string, body?: unknown): Promise<Answer<T>>
  /** As `request`, failing the test unless the answer is 200; answers its body. */
  ok<T = any>(path: string, body?: unknown): Promise<T>
}

/**
 * Registers the suite's hooks: before its tests, the renderer is built, the headless server started (in
 * sandbox mode unless told otherwise) and a fresh browser logged in through the URL the server printed; after
 * them, both stop. Call it at the top of a `describe`; its `before` runs ahead of the suite's own.
 */
export function windowPerSuite(serverArgs: string[] = ['--sandbox']): WindowUnderTest {
  let started: { server: HeadlessServer; browser: TestBrowser; page: Page } | undefined
  const get = () => {
    assert.ok(started, 'the window is opened by the suite’s before hook')
    return started
  }
  before(async () => {
    await ensureRendererBuilt()
    const server = await startHeadlessServer(serverArgs)
    const browser = await launchBrowser()
    started = { server, browser, page: await browser.context.newPage() }
    await started.page.goto(server.loginUrl)
    await started.page.getByRole('heading', { name: 'Instances', level: 1 }).waitFor()
  })
  after(async () => {
    await started?.browser.close()
    await started?.server.stop()
  })

  const window: WindowUnderTest = {
    get server() {
      return get().server
    },
    get browser() {
      return get().browser
    },
    get page() {
      return get().page
    },
    sessionHeaders: () => windowSessionHeaders(get().browser.context, get().server.apiBase),
    async request(path, body) {
      const answer = await fetch(`${get().server.apiBase}/${path}`, {
        method: body === undefined ? 'GET' : 'POST',
        headers: {
          ...(await window.sessionHeaders()),
          ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        },
        body: body === undefined ? undefined : JSON.stringify(body),
      })
      const text = await answer.text()
      return { status: answer.status, body: text === '' ? undefined : JSON.parse(text) }
    },
    async ok(path, body) {
      const answer = await window.request(path, body)
      assert.equal(answer.status, 200, `${path}: ${JSON.stringify(answer.body)}`)
      return answer.body
    },
  }
  return window
}
