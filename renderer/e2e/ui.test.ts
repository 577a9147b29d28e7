import assert from 'node:assert/strict'
import { mkdirSync } from 'node:fs'
import { after, before, describe, test } from 'node:test'
import type { Page } from 'playwright-core'
import { seriousViolations } from './axe'
import { chromiumMissing, launchBrowser, type TestBrowser } from './browser'
import { type HeadlessServer, startHeadlessServer } from './headless-server'
import { ensureRendererBuilt } from './renderer-build'

const SCREENSHOTS = new URL('./screenshots/', import.meta.url)
const SCREENS = ['Instances', 'Composer', 'Events', 'Webhooks', 'Tokens', 'Settings'] as const

async function screenshot(page: Page, name: string): Promise<void> {
  await page.screenshot({ path: new URL(`${name}.png`, SCREENSHOTS).pathname, fullPage: true })
}

async function openScreen(page: Page, name: string): Promise<void> {
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name, exact: true }).click()
  await page
    .getByRole('heading', { level: 1 })
    .filter({ hasText: name === 'Tokens' ? 'Access tokens' : name })
    .waitFor()
}

/** Calls an API operation as a script would, with an access token. */
async function callAsScript(
  apiBase: string,
  operation: string,
  token: string,
): Promise<{ status: number; body: { status: string; code?: string } }> {
  const response = await fetch(`${apiBase}/${operation}?access_token=${encodeURIComponent(token)}`)
  return { status: response.status, body: await response.json() }
}

describe('the window in a browser, against the headless server', { skip: chromiumMissing }, () => {
  let server: HeadlessServer
  let browser: TestBrowser
  let page: Page
  const cspViolations: string[] = []

  before(async () => {
    mkdirSync(SCREENSHOTS, { recursive: true })
    await ensureRendererBuilt()
    server = await startHeadlessServer()
    browser = await launchBrowser()
    page = await browser.context.newPage()
    page.on('console', (message) => {
      if (message.type() === 'error' && /Content Security Policy/i.test(message.text())) {
        cspViolations.push(message.text())
      }
    })
  })

  after(async () => {
    await browser?.close()
    await server?.stop()
  })

  test('without a login, the UI says to open the login URL the server printed', async () => {
    const response = await page.goto(new URL('/', server.loginUrl).href)
    assert.match(response?.headers()['content-security-policy'] ?? '', /default-src 'self'/)
    await page.getByRole('heading', { name: 'Log in to Linkdesk' }).waitFor()
    assert.match(await page.locator('main').innerText(), /login URL that the server printed/)
    await screenshot(page, 'login-required')
  })

  test('the one-time login URL logs the browser in and leaves no code in the address bar', async () => {
    await page.goto(server.loginUrl)
    await page.getByRole('heading', { name: 'Instances', level: 1 }).waitFor()
    assert.equal(new URL(page.url()).hash, '#/instances')
    await page.getByRole('heading', { name: 'No instances yet' }).waitFor()
  })

  test('an instance created from the window appears in the list', async () => {
    await page.getByRole('button', { name: 'Create instance' }).click()
    const card = page.getByRole('list', { name: 'Instances' }).getByRole('listitem').first()
    await card.waitFor()
    assert.match(await card.innerText(), /Instance id\s+\S{16,}/)
    await screenshot(page, 'instances')
  })

  test('a token created from the window is shown once and works for scripts', async () => {
    await openScreen(page, 'Tokens')
    await page.getByRole('heading', { name: 'No access tokens yet' }).waitFor()
    await page.getByLabel('Label', { exact: true }).fill('order bot')
    await page.getByRole('button', { name: 'Create token' }).click()
    const revealed = page.getByRole('region', { name: 'Token “order bot” created' })
    const token = await revealed.getByLabel('New token value').inputValue()
    assert.match(token, /^ldk_/)
    const row = page.getByRole('row').filter({ hasText: 'order bot' })
    await row.waitFor()
    assert.equal(
      await row.innerText().then((text) => text.includes(token)),
      false,
      'the list never shows a value',
    )
    const created = await callAsScript(server.apiBase, 'create_instance', token)
    assert.equal(created.status, 200)
    assert.equal(created.body.status, 'success')
    await screenshot(page, 'tokens')
    await revealed.getByRole('button', { name: 'Done' }).click()
    await revealed.waitFor({ state: 'detached' })
  })

  test('a token can be renamed, and revoked after confirmation, after which scripts get 401', async () => {
    await page.getByRole('button', { name: 'Create token' }).isVisible()
    await page.getByLabel('Label', { exact: true }).fill('to revoke')
    await page.getByRole('button', { name: 'Create token' }).click()
    const token = await page.getByLabel('New token value').inputValue()
    await page.getByRole('button', { name: 'Done' }).click()

    await page.getByRole('button', { name: 'Rename to revoke' }).click()
    await page.getByLabel('New label for to revoke').fill('old script')
    await page.getByRole('button', { name: 'Save' }).click()
    await page.getByRole('row').filter({ hasText: 'old script' }).waitFor()

    await page.getByRole('button', { name: 'Revoke old script' }).click()
    const dialog = page.getByRole('dialog', { name: 'Revoke “old script”?' })
    await dialog.getByRole('button', { name: 'Cancel' }).click()
    await dialog.waitFor({ state: 'detached' })
    assert.equal((await callAsScript(server.apiBase, 'create_instance', token)).status, 200)

    await page.getByRole('button', { name: 'Revoke old script' }).click()
    await screenshot(page, 'tokens-revoke-confirmation')
    await dialog.getByRole('button', { name: 'Revoke token' }).click()
    await page.getByRole('row').filter({ hasText: 'old script' }).waitFor({ state: 'detached' })
    const refused = await callAsScript(server.apiBase, 'create_instance', token)
    assert.equal(refused.status, 401)
    assert.equal(refused.body.code, 'unauthorized')
  })

  test('every main screen, light and dark, has no serious accessibility violations', async () => {
    for (const theme of ['light', 'dark'] as const) {
      await page.emulateMedia({ colorScheme: theme })
      for (const name of SCREENS) {
        await openScreen(page, name)
        assert.deepEqual(await seriousViolations(page), [], `${name} in ${theme} mode`)
        await screenshot(page, `${name.toLowerCase()}${theme === 'dark' ? '-dark' : ''}`)
      }
    }
    await page.emulateMedia({ colorScheme: 'light' })
  })

  test('the UI runs under the server’s Content Security Policy without violations', () => {
    assert.deepEqual(cspViolations, [])
  })
})
