import assert from 'node:assert/strict'
import { execFile } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, describe, test } from 'node:test'
import { promisify } from 'node:util'
import type { Page } from 'playwright-core'
import type { SandboxInboxEntryView } from '../../electron/core/shared-types'
import { chromiumMissing, launchBrowser, type TestBrowser } from './browser'
import { type HeadlessServer, startHeadlessServer } from './headless-server'
import { ensureRendererBuilt } from './renderer-build'
import { screenshot } from './screenshots'
import { startWebhookReceiver, type WebhookReceiver } from './webhook-receiver'

const execFileAsync = promisify(execFile)
/** The token the server is started with, as a user exports it. */
const ACCESS_TOKEN = 'e2e-access-token-0123456789'
const PHONE_A = '15550003331'
const CONTACT = '15550003339'

/** Calls an operation as a script does, with an access token. */
async function script(
  apiBase: string,
  token: string,
  operation: string,
  params: Record<string, unknown> = {},
): Promise<{ status: number; body: any }> {
  const response = await fetch(`${apiBase}/${operation}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify(params),
  })
  return { status: response.status, body: await response.json() }
}

async function openScreen(page: Page, name: string, heading = name): Promise<void> {
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name, exact: true }).click()
  await page.getByRole('heading', { level: 1 }).filter({ hasText: heading }).waitFor()
}

describe(
  'scripts and the window share accounts; the window’s login holds across tabs and restarts',
  { skip: chromiumMissing },
  () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'linkdesk-e2e-access-'))
    let server: HeadlessServer
    let port: number
    let browser: TestBrowser
    let page: Page
    let receiver: WebhookReceiver
    let instanceA: string
    let instanceB: string
    let onlyA: string
    const start = () =>
      startHeadlessServer(['--sandbox'], { accessToken: ACCESS_TOKEN, dataDir, port: port ?? 0 })
    const inbox = async (phone: string) => {
      const answer = await fetch(`${server.apiBase}/sandbox/accounts/${phone}/messages`, {
        headers: { authorization: `Bearer ${ACCESS_TOKEN}` },
      })
      return ((await answer.json()) as { messages: SandboxInboxEntryView[] }).messages
    }
    const arrived = async (phone: string, text: string) => {
      for (let tries = 0; tries < 200; tries++) {
        if ((await inbox(phone)).some((entry) => JSON.stringify(entry).includes(text))) return
        await new Promise((resolve) => setTimeout(resolve, 100))
      }
      throw new Error(`${phone} never got “${text}”`)
    }

    before(async () => {
      await ensureRendererBuilt()
      server = await start()
      port = Number(new URL(server.apiBase).port)
      receiver = await startWebhookReceiver()
      browser = await launchBrowser()
      page = await browser.context.newPage()
      const contact = await script(server.apiBase, ACCESS_TOKEN, 'sandbox/accounts', {
        phone: CONTACT,
        name: 'Carol',
      })
      assert.equal(contact.status, 200, JSON.stringify(contact.body))
    })

    after(async () => {
      await browser?.close()
      await receiver?.close()
      await server?.stop()
      rmSync(dataDir, { recursive: true, force: true })
    })

    test('an instance linked in the window is listed, sent from and hooked by the token reaching all instances, and its global webhook hears it', async () => {
      await page.goto(server.loginUrl)
      await page.getByRole('heading', { name: 'Instances', level: 1 }).waitFor()
      await page.getByRole('button', { name: 'Create instance' }).click()
      await page.getByRole('img', { name: /^QR code number \d+ to link an account$/ }).waitFor()
      instanceA = /#\/instances\/([^/]+)/.exec(page.url())![1]!
      const scan = page.getByRole('form', { name: 'Sandbox: scan with a simulated phone' })
      await scan.getByLabel('Phone number').fill(PHONE_A)
      await scan.getByLabel('Account name').fill('Front desk')
      await scan.getByRole('button', { name: 'Scan with a sandbox phone' }).click()
      await page.locator('.badge', { hasText: 'Connected' }).waitFor()

      const listed = await script(server.apiBase, ACCESS_TOKEN, 'instances')
      assert.deepEqual(
        listed.body.instances.map((instance: any) => instance.instance_id),
        [instanceA],
      )
      const global = await script(server.apiBase, ACCESS_TOKEN, 'add_webhook', { url: receiver.url })
      assert.equal(global.status, 200, JSON.stringify(global.body))
      const own = await script(server.apiBase, ACCESS_TOKEN, 'set_webhook', {
        instance_id: instanceA,
        webhook_url: `${receiver.url}?own`,
        enable: true,
      })
      assert.equal(own.status, 200, JSON.stringify(own.body))
      const hook = await script(server.apiBase, ACCESS_TOKEN, 'get_webhook', { instance_id: instanceA })
      assert.equal(hook.body.webhook.url, `${receiver.url}?own`)

      const sent = await script(server.apiBase, ACCESS_TOKEN, 'send_message', {
        instance_id: instanceA,
        number: CONTACT,
        type: 'text',
        message: 'From the script',
      })
      assert.equal(sent.status, 200, JSON.stringify(sent.body))
      await arrived(CONTACT, 'From the script')

      const reply = await script(server.apiBase, ACCESS_TOKEN, `sandbox/accounts/${CONTACT}/messages`, {
        to: PHONE_A,
        text: 'Carol answers',
      })
      assert.equal(reply.status, 200)
      const deadline = Date.now() + 20_000
      const heard = () =>
        receiver.received.filter(
          (event: any) => event.event === 'message.received' && event.instance_id === instanceA,
        )
      // The instance's own webhook and the token's global one each get it.
      while (heard().length < 2) {
        assert.ok(
          Date.now() < deadline,
          `the webhooks heard ${JSON.stringify(receiver.received.map((e) => e.event))}`,
        )
        await new Promise((resolve) => setTimeout(resolve, 100))
      }
    })

    test('a token reaching only instance A, made on the Tokens screen, gets 404 for B and 403 for an admin operation; B’s page can give it B', async () => {
      await openScreen(page, 'Instances')
      await page.getByRole('button', { name: 'Create instance' }).click()
      await page.getByRole('img', { name: /^QR code number \d+ to link an account$/ }).waitFor()
      instanceB = /#\/instances\/([^/]+)/.exec(page.url())![1]!
      assert.notEqual(instanceB, instanceA)

      await openScreen(page, 'Tokens', 'Access tokens')
      const form = page.getByRole('form', { name: 'Create an access token' })
      await form.getByLabel('Label', { exact: true }).fill('only A')
      await form.getByLabel('Chosen instances (and those it creates)').check()
      await form
        .getByRole('list', { name: 'Chosen instances' })
        .getByLabel(/Front desk/)
        .check()
      await form.getByRole('button', { name: 'Create token' }).click()
      onlyA = await page.getByLabel('New token value').inputValue()
      await page.getByRole('button', { name: 'Done' }).click()
      const row = page.getByRole('row').filter({ hasText: 'only A' })
      await row.filter({ hasText: 'Front desk' }).waitFor()
      assert.match(await row.innerText(), /read, send, manage/)
      assert.match(
        await page.getByRole('row').filter({ hasText: 'LINKDESK_ACCESS_TOKEN' }).first().innerText(),
        /All instances/,
      )
      await screenshot(page, 'tokens-reach')

      const mine = await script(server.apiBase, onlyA, 'instances')
      assert.deepEqual(
        mine.body.instances.map((instance: any) => instance.instance_id),
        [instanceA],
      )
      const foreign = await script(server.apiBase, onlyA, 'instance', { instance_id: instanceB })
      assert.equal(foreign.status, 404)
      assert.equal(foreign.body.code, 'instance_not_found')
      const admin = await script(server.apiBase, onlyA, 'admin/tokens')
      assert.equal(admin.status, 403)
      assert.equal(admin.body.code, 'insufficient_scope')

      await page.goto(new URL(`/#/instances/${instanceB}`, server.loginUrl).href)
      const access = page.getByRole('form', { name: 'Who may use it' })
      await access.getByLabel(/only A/).check()
      await access.getByRole('button', { name: 'Save who may use it' }).click()
      await access.getByRole('status').filter({ hasText: 'Saved' }).waitFor()
      await screenshot(page, 'instance-access')
      assert.equal((await script(server.apiBase, onlyA, 'instance', { instance_id: instanceB })).status, 200)
    })

    test('the composer’s curl, pasted into a shell with LINKDESK_ACCESS_TOKEN exported, sends', async () => {
      await openScreen(page, 'Composer')
      await page.getByLabel('Instance').selectOption(instanceA)
      await page.getByLabel('Number or group id').fill(CONTACT)
      await page.getByLabel('Message').fill('Pasted from the composer')
      const picker = page.getByLabel('Token for the curl command')
      const offered = await picker.locator('option').allInnerTexts()
      assert.ok(
        offered.some((label) => label.startsWith('LINKDESK_ACCESS_TOKEN')),
        offered.join(' | '),
      )
      assert.ok(
        offered.some((label) => label.startsWith('only A')),
        'a token reaching the instance',
      )
      await picker.selectOption({
        label: offered.find((label) => label.startsWith('LINKDESK_ACCESS_TOKEN'))!,
      })
      const curl = await page.getByRole('figure', { name: /curl/ }).locator('pre').innerText()
      await screenshot(page, 'composer-curl-token')
      assert.match(curl, /\$LINKDESK_ACCESS_TOKEN/)
      assert.match(curl, /^# LINKDESK_ACCESS_TOKEN holds the token “LINKDESK_ACCESS_TOKEN”/)
      assert.doesNotMatch(curl, /ui_|lds_/, 'never the window’s own credential')
      const { stdout } = await execFileAsync('bash', ['-c', curl], {
        env: { ...process.env, LINKDESK_ACCESS_TOKEN: ACCESS_TOKEN },
      })
      assert.equal(JSON.parse(stdout).status, 'success', stdout)
      await arrived(CONTACT, 'Pasted from the composer')
    })

    test('two tabs are logged in at once; after a server restart the open tab works again without a new URL', async () => {
      const second = await browser.context.newPage()
      await second.goto(new URL('/', server.loginUrl).href)
      await second.getByRole('heading', { name: 'Instances', level: 1 }).waitFor()
      await second.getByRole('list', { name: 'Instances' }).getByText(`+${PHONE_A}`).first().waitFor()

      await server.stop()
      server = await start()
      await openScreen(page, 'Tokens', 'Access tokens')
      await page.getByRole('row').filter({ hasText: 'only A' }).waitFor()
      await openScreen(page, 'Events')
      await page.getByText('Live', { exact: true }).waitFor()
      assert.equal(await page.getByRole('heading', { name: 'Log in to Linkdesk' }).count(), 0)
      await second.close()
    })

    test('log-out ends the session in every tab; an admin token logs the browser in again', async () => {
      const other = await browser.context.newPage()
      await other.goto(new URL('/', server.loginUrl).href)
      await other.getByRole('heading', { name: 'Instances', level: 1 }).waitFor()
      await other.getByRole('button', { name: 'Log out' }).click()
      await other.getByRole('heading', { name: 'Log in to Linkdesk' }).waitFor()
      await other.close()

      // The open tab learns it at its next call.
      await page
        .getByRole('navigation', { name: 'Main' })
        .getByRole('link', { name: 'Instances', exact: true })
        .click()
      await page.getByRole('heading', { name: 'Log in to Linkdesk' }).waitFor()
      assert.match(await page.locator('main').innerText(), /log in again/)
      const cookies = await browser.context.cookies(server.apiBase)
      assert.equal(
        cookies.some((cookie) => cookie.name === 'linkdesk_session' && cookie.value !== ''),
        false,
        'the cookie is cleared',
      )

      await page.getByLabel('Or an access token').fill(onlyA)
      await page.getByRole('button', { name: 'Log in' }).click()
      await page
        .getByRole('alert')
        .filter({ hasText: /reaches all instances/ })
        .waitFor()
      await page.getByLabel('Or an access token').fill(ACCESS_TOKEN)
      await page.getByRole('button', { name: 'Log in' }).click()
      await page.getByRole('heading', { name: 'Instances', level: 1 }).waitFor()
      await screenshot(page, 'logged-in-with-token')
    })
  },
)
