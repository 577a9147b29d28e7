import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import type { Page } from 'playwright-core'
import { seriousViolations } from './axe'
import { chromiumMissing, launchBrowser, type TestBrowser } from './browser'
import { windowSessionHeaders } from './window-session'
import { type HeadlessServer, startHeadlessServer } from './headless-server'
import { ensureRendererBuilt } from './renderer-build'
import { createAndScan } from './window-link'

const INSTANCE_PHONE = '15550006666'
const CONTACT = '15550006667'

describe('the sandbox panel changes how a contact’s phone behaves', { skip: chromiumMissing }, () => {
  let server: HeadlessServer
  let browser: TestBrowser
  let page: Page
  let instanceId = ''

  /** Calls an API operation with the window's own credential, as a script beside the window would. */
  const call = async <T>(method: 'GET' | 'POST', path: string, body?: unknown): Promise<T> => {
    const response = await fetch(`${server.apiBase}/${path}`, {
      method,
      headers: {
        ...(await windowSessionHeaders(browser.context, server.apiBase)),
        'content-type': 'application/json',
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    })
    assert.equal(
      response.status,
      200,
      `${path} answered ${response.status}: ${await response.clone().text()}`,
    )
    return (await response.json()) as T
  }

  before(async () => {
    await ensureRendererBuilt()
    server = await startHeadlessServer(['--sandbox'])
    browser = await launchBrowser()
    page = await browser.context.newPage()
    await page.goto(server.loginUrl)
    await createAndScan(page, { phone: INSTANCE_PHONE })
    await page.locator('.state .badge', { hasText: /^State:\s*Connected$/ }).waitFor()
    instanceId = (await page.locator('.facts dd code').first().innerText()).trim()
    await call('POST', 'sandbox/accounts', { phone: CONTACT, name: 'Reader' })
  })

  after(async () => {
    await browser?.close()
    await server?.stop()
  })

  test('“reads instantly”, saved in the panel, is kept by the sandbox and gives the app’s message a read receipt', async () => {
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Sandbox' }).click()
    await page
      .getByRole('list', { name: 'Sandbox accounts' })
      .getByRole('button', { name: new RegExp(`Reader \\+${CONTACT}`) })
      .click()
    const form = page.getByRole('form', { name: 'Phone behaviour' })
    await form.getByLabel('Reads what it gets').selectOption('instantly')
    await form.getByLabel('Online').selectOption('always')
    await form.getByRole('button', { name: 'Save behaviour' }).click()
    await page.getByRole('status').filter({ hasText: 'now reads instantly' }).waitFor()
    assert.deepEqual([], await seriousViolations(page), 'the panel with the behaviour form passes axe')

    const { behaviour } = await call<{ behaviour: Record<string, unknown> }>(
      'GET',
      `sandbox/accounts/${CONTACT}/behaviour`,
    )
    assert.equal(behaviour.reads, 'instantly')
    assert.equal(behaviour.online, 'always')
    const { message: sent } = await call<{ message: { key: { id: string } } }>('POST', 'send_message', {
      instance_id: instanceId,
      number: CONTACT,
      type: 'text',
      message: 'did you read this?',
    })
    // The contact's phone read it by itself: the app sees the read receipt as message.status read.
    const deadline = Date.now() + 30_000
    for (;;) {
      const { events } = await call<{ events: Array<{ data: { id: string; status: string } }> }>(
        'GET',
        `events?instance_id=${instanceId}&event=message.status&limit=100`,
      )
      if (events.some((event) => event.data.id === sent.key.id && event.data.status === 'read')) break
      assert.ok(Date.now() < deadline, 'no read receipt reached the app within 30 s')
      await new Promise((resolve) => setTimeout(resolve, 200))
    }
  })
})
