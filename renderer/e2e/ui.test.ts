import assert from 'node:assert/strict'
import { execFile } from 'node:child_process'
import { after, before, describe, test } from 'node:test'
import { promisify } from 'node:util'
import type { Page } from 'playwright-core'
import type { SandboxInboxEntryView } from '../../electron/core/shared-types'
import { EVENT_NAMES } from '../../electron/core/contract/event-catalogue'
import { seriousViolations } from './axe'
import { chromiumMissing, launchBrowser, type TestBrowser } from './browser'
import { windowSessionHeaders } from './window-session'
import { type HeadlessServer, startHeadlessServer } from './headless-server'
import { ensureRendererBuilt } from './renderer-build'
import { screenshot } from './screenshots'
import { startWebhookReceiver, type WebhookReceiver } from './webhook-receiver'
import { startHttpProxy } from '../../electron/core/testing/local-proxies'

const execFileAsync = promisify(execFile)
const SCREENS = ['Instances', 'Composer', 'Events', 'Webhooks', 'Sandbox', 'Tokens', 'Settings'] as const
const INSTANCE_PHONE = '15550001111'
const CONTACT_PHONE = '15550002222'

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

describe(
  'the window in a browser, against the headless server in sandbox mode',
  { skip: chromiumMissing },
  () => {
    let server: HeadlessServer
    let browser: TestBrowser
    let page: Page
    let receiver: WebhookReceiver
    const cspViolations: string[] = []

    /** The window's own session (its HttpOnly cookie), to act as the outside world (a contact) beside it. */
    const windowAuth = () => windowSessionHeaders(browser.context, server.apiBase)

    before(async () => {
      await ensureRendererBuilt()
      server = await startHeadlessServer(['--sandbox'])
      receiver = await startWebhookReceiver()
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
      await receiver?.close()
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

    test('a created instance shows its QR code, a sandbox phone scans it, and it becomes connected with its number', async () => {
      await page.getByRole('button', { name: 'Create instance' }).click()
      await page.getByRole('img', { name: /^QR code number \d+ to link an account$/ }).waitFor()
      assert.match(await page.locator('.qr figcaption').innerText(), /Valid for \d+ s/)
      const scan = page.getByRole('form', { name: 'Sandbox: scan with a simulated phone' })
      await scan.getByLabel('Phone number').fill(INSTANCE_PHONE)
      await scan.getByLabel('Account name').fill('Front desk')
      await screenshot(page, 'instance-link')
      await scan.getByRole('button', { name: 'Scan with a sandbox phone' }).click()
      await page.getByRole('heading', { level: 1, name: new RegExp(`\\+${INSTANCE_PHONE}`) }).waitFor()
      await page.locator('.badge', { hasText: 'Connected' }).waitFor()
      const lastError = page
        .locator('.facts dt', { hasText: 'Last connection error' })
        .locator('xpath=following-sibling::dd[1]')
      assert.equal(await lastError.innerText(), 'None', 'the routine restart after a scan is no error')
      // The account's name arrives from the network a moment after the connection opens: shown live.
      await page.getByRole('heading', { level: 1, name: `Front desk (+${INSTANCE_PHONE})` }).waitFor()
      const accountName = page
        .locator('.facts dt', { hasText: 'Account name' })
        .locator('xpath=following-sibling::dd[1]')
      assert.equal(await accountName.innerText(), 'Front desk')
      await page.getByRole('link', { name: '← All instances' }).click()
      const card = page.getByRole('list', { name: 'Instances' }).getByRole('listitem').first()
      await card.getByText(`+${INSTANCE_PHONE}`).first().waitFor()
      assert.match(await card.innerText(), /Connected/)
      assert.match(await card.innerText(), /Front desk/)
      await screenshot(page, 'instances')
    })

    test('the composer sends a text and a local file, and the contact’s inbox shows both', async () => {
      await openScreen(page, 'Sandbox')
      await page.getByLabel('Phone number').fill(CONTACT_PHONE)
      await page.getByLabel('Name (optional)').fill('Bob')
      await page.getByRole('button', { name: 'Add contact' }).click()
      await page.getByRole('heading', { name: `Bob (+${CONTACT_PHONE})` }).waitFor()

      await openScreen(page, 'Composer')
      await page
        .getByLabel('Instance')
        .locator('option:checked', { hasText: INSTANCE_PHONE })
        .waitFor({ state: 'attached' })
      await page.getByLabel('Number or group id').fill(CONTACT_PHONE)
      await page.getByLabel('Message').fill('Hello from the window')
      await page.getByRole('button', { name: 'Send', exact: true }).click()
      await page.getByRole('figure', { name: 'Answer' }).waitFor()
      assert.match(await page.getByRole('figure', { name: /curl/ }).innerText(), /send_message/)

      await page.getByLabel('A file (image, video, audio or document)').check()
      await page.getByLabel('This computer').check()
      await page.getByLabel('File to send').setInputFiles({
        name: 'notes.txt',
        mimeType: 'text/plain',
        buffer: Buffer.from('Opening hours: 9 to 5\n'),
      })
      assert.equal(await page.getByLabel('Document file name (optional)').inputValue(), 'notes.txt')
      await page.getByLabel('Caption (optional)').fill('The notes')
      await page.getByRole('button', { name: 'Send', exact: true }).click()
      await page.getByRole('figure', { name: 'Answer' }).filter({ hasText: 'notes.txt' }).waitFor()
      assert.match(await page.getByRole('figure', { name: 'Answer' }).innerText(), /"mimetype": "text\/plain/)
      assert.match(await page.getByRole('figure', { name: /curl/ }).innerText(), /\/uploads\//)
      await screenshot(page, 'composer')

      await openScreen(page, 'Sandbox')
      await page.getByRole('button', { name: new RegExp(`Bob \\+${CONTACT_PHONE}`) }).click()
      const inbox = page.getByRole('list', { name: `Inbox of Bob (+${CONTACT_PHONE})` })
      await inbox.getByText('Hello from the window').waitFor()
      await inbox.getByText(/\[document notes\.txt \(22 bytes\)\]: The notes/).waitFor()
      assert.equal(await inbox.getByRole('listitem').count(), 2, 'the text and the file, nothing else')
      await page.getByRole('heading', { name: 'Inbox (2)' }).waitFor()
      assert.equal(
        await page.getByRole('figure', { name: 'Answer' }).count(),
        0,
        'the composer’s answer stays on its screen',
      )
      await screenshot(page, 'sandbox')
    })

    test('a contact’s reply appears live in the event log, with its payload', async () => {
      await openScreen(page, 'Events')
      await page.getByText('Live', { exact: true }).waitFor()
      const reply = await fetch(`${server.apiBase}/sandbox/accounts/${CONTACT_PHONE}/messages`, {
        method: 'POST',
        headers: { ...(await windowAuth()), 'content-type': 'application/json' },
        body: JSON.stringify({ to: INSTANCE_PHONE, text: 'Reply from Bob' }),
      })
      assert.equal(reply.status, 200)
      const row = page
        .getByRole('listbox', { name: 'Events' })
        .getByRole('option')
        .filter({ hasText: 'Reply from Bob' })
      await row.waitFor()
      assert.match(await row.innerText(), /message\.received/)
      const filterNames = await page.getByLabel('Event', { exact: true }).locator('option').allInnerTexts()
      assert.deepEqual(filterNames, ['All events', ...EVENT_NAMES], 'the filter offers every catalogue event')
      await row.click()
      assert.match(await page.getByLabel('Event payload').innerText(), /"sender_phone": "15550002222"/)
    })

    test('the composer replies to a message picked in the log, and sends a location and contact cards', async () => {
      const auth = await windowAuth()
      const inboxOf = async () => {
        const answer = await fetch(`${server.apiBase}/sandbox/accounts/${CONTACT_PHONE}/messages`, {
          headers: auth,
        })
        return ((await answer.json()) as { messages: SandboxInboxEntryView[] }).messages
      }
      const arrived = async (what: (entry: SandboxInboxEntryView) => boolean) => {
        for (let tries = 0; tries < 100; tries++) {
          const found = (await inboxOf()).find(what)
          if (found) return found
          await new Promise((resolve) => setTimeout(resolve, 100))
        }
        throw new Error('the contact never got the message')
      }
      // The row picked in the previous test: Bob's reply.
      const payload = JSON.parse(await page.getByLabel('Event payload').innerText()) as {
        data: { id: string; chat: string }
      }
      await page.getByRole('link', { name: 'Reply in the composer' }).click()
      await page.getByRole('heading', { level: 1, name: 'Composer' }).waitFor()
      assert.equal(await page.getByLabel('Number or group id').inputValue(), payload.data.chat)
      assert.equal(await page.getByLabel('Reply to (optional)').inputValue(), payload.data.id)
      await page.getByLabel('Message').fill('Answering your reply')
      await page.getByRole('button', { name: 'Send', exact: true }).click()
      await page.getByRole('figure', { name: 'Answer' }).waitFor()
      const answer = await arrived((entry) => entry.text === 'Answering your reply')
      assert.equal(answer.quotedId, payload.data.id, 'the contact sees it quoting their message')

      await page.getByLabel('Reply to (optional)').fill('')
      await page.getByRole('radio', { name: 'Location' }).check()
      await page.getByLabel('Latitude').fill('-33.8568')
      await page.getByLabel('Longitude').fill('151.2153')
      await page.getByLabel('Place name (optional)').fill('Opera House')
      assert.match(await page.getByRole('figure', { name: /curl/ }).innerText(), /"latitude":-33.8568/)
      await page.getByRole('button', { name: 'Send', exact: true }).click()
      await page.getByRole('figure', { name: 'Answer' }).filter({ hasText: 'locationMessage' }).waitFor()
      const place = await arrived((entry) => entry.type === 'location')
      assert.deepEqual(place.location, {
        latitude: -33.8568,
        longitude: 151.2153,
        name: 'Opera House',
        address: null,
      })
      assert.equal(place.quotedId, null)

      await page.getByRole('radio', { name: 'Contact cards' }).check()
      await page
        .getByRole('textbox', { name: 'Contact cards' })
        .fill('Carol Jones: +1 555 000 3333\nDan: 15550004444')
      await page.getByRole('button', { name: 'Send', exact: true }).click()
      await page.getByRole('figure', { name: 'Answer' }).filter({ hasText: 'contactsArrayMessage' }).waitFor()
      const cards = await arrived((entry) => entry.contacts !== null)
      assert.deepEqual(
        cards.contacts?.map(({ name, phones }) => ({ name, phones })),
        [
          { name: 'Carol Jones', phones: ['15550003333'] },
          { name: 'Dan', phones: ['15550004444'] },
        ],
      )
      await screenshot(page, 'composer-kinds')
    })

    test('a sandbox contact sends a location and contact cards from the window; both arrive as events', async () => {
      await openScreen(page, 'Sandbox')
      await page.getByRole('button', { name: new RegExp(`Bob \\+${CONTACT_PHONE}`) }).click()
      const form = page.getByRole('form', { name: `Send as Bob (+${CONTACT_PHONE})` })
      await form.getByLabel('To (number or group id)').fill(INSTANCE_PHONE)
      await form.getByRole('radio', { name: 'Location' }).check()
      await form.getByLabel('Latitude').fill('1.5')
      await form.getByLabel('Longitude').fill('2.5')
      await form.getByLabel('Place name (optional)').fill('Harbour')
      await form.getByRole('button', { name: 'Send as this contact' }).click()
      await page
        .getByRole('status')
        .filter({ hasText: `Sent as +${CONTACT_PHONE}` })
        .waitFor()
      await form.getByRole('radio', { name: 'Contact cards' }).check()
      await form.getByLabel('Cards, one a line (name: number)').fill('Eve Adams: +1 555 000 5555')
      await form.getByRole('button', { name: 'Send as this contact' }).click()

      await openScreen(page, 'Events')
      const events = page.getByRole('listbox', { name: 'Events' })
      await events.getByRole('option').filter({ hasText: 'location Harbour (1.5, 2.5)' }).waitFor()
      const card = events.getByRole('option').filter({ hasText: 'contact Eve Adams 15550005555' })
      await card.waitFor()
      await card.click()
      const payload = JSON.parse(await page.getByLabel('Event payload').innerText()) as {
        event: string
        data: { contacts: Array<{ name: string; phones: string[] }> }
      }
      assert.equal(payload.event, 'message.received')
      assert.deepEqual(
        payload.data.contacts.map(({ name, phones }) => ({ name, phones })),
        [{ name: 'Eve Adams', phones: ['15550005555'] }],
      )
    })

    test('an instance’s page lists its chats and contacts; a chat opens the composer to write there', async () => {
      await openScreen(page, 'Instances')
      const card = page.getByRole('list', { name: 'Instances' }).getByRole('listitem').first()
      await card.getByRole('link').first().click()
      await page.getByRole('heading', { level: 1, name: `Front desk (+${INSTANCE_PHONE})` }).waitFor()
      const chats = page.getByRole('list', { name: 'Chats' })
      const chat = chats.getByRole('link', { name: 'Bob', exact: true })
      await chat.waitFor()
      assert.match(await chats.innerText(), /unread/, 'Bob’s messages are not read yet')
      await page.getByRole('list', { name: 'Contacts' }).getByRole('link', { name: 'Bob' }).waitFor()
      await screenshot(page, 'instance-chats')
      await chat.click()
      await page.getByRole('heading', { level: 1, name: 'Composer' }).waitFor()
      assert.equal(
        await page.getByLabel('Number or group id').inputValue(),
        `${CONTACT_PHONE}@s.whatsapp.net`,
      )
    })

    test('an instance’s page shows its groups with their members, and changes the account’s display name', async () => {
      const made = await fetch(`${server.apiBase}/sandbox/groups`, {
        method: 'POST',
        headers: { ...(await windowAuth()), 'content-type': 'application/json' },
        body: JSON.stringify({ subject: 'Night shift', participants: [CONTACT_PHONE, INSTANCE_PHONE] }),
      })
      assert.equal(made.status, 200)
      const { group_id: groupId } = (await made.json()) as { group_id: string }
      await openScreen(page, 'Instances')
      await page
        .getByRole('list', { name: 'Instances' })
        .getByRole('listitem')
        .first()
        .getByRole('link')
        .first()
        .click()
      const groups = page.getByRole('list', { name: 'Groups' })
      await groups.getByRole('link', { name: 'Night shift' }).waitFor()
      await groups.getByText('Members', { exact: true }).click()
      const members = page.getByRole('list', { name: 'Members of Night shift' })
      await members.getByText(`+${CONTACT_PHONE}`).waitFor()
      assert.match(await members.innerText(), /creator/, 'the creator is named')

      await page.getByLabel('Display name').fill('Night desk')
      await page.getByRole('button', { name: 'Save profile' }).click()
      await page.getByRole('status').filter({ hasText: 'Changed: name.' }).waitFor()
      const accounts = await fetch(`${server.apiBase}/sandbox/accounts`, {
        headers: { ...(await windowAuth()) },
      })
      const { accounts: list } = (await accounts.json()) as {
        accounts: Array<{ phone: string; name: string }>
      }
      assert.equal(list.find((account) => account.phone === INSTANCE_PHONE)?.name, 'Night desk')
      await screenshot(page, 'instance-groups')

      await groups.getByRole('link', { name: 'Night shift' }).click()
      await page.getByRole('heading', { level: 1, name: 'Composer' }).waitFor()
      assert.equal(await page.getByLabel('Number or group id').inputValue(), groupId)
      // The composer fills its suggestions from the chats once it is open: wait for them, then read them.
      for (const value of [groupId, CONTACT_PHONE]) {
        await page.locator(`#composer-recipients option[value="${value}"]`).waitFor({ state: 'attached' })
      }
      const offered = await page
        .locator('#composer-recipients option')
        .evaluateAll((options) => options.map((option) => (option as HTMLOptionElement).value))
      assert.ok(offered.includes(groupId) && offered.includes(CONTACT_PHONE), JSON.stringify(offered))
    })

    test('a saved webhook delivers a test event, and the window shows the attempt', async () => {
      await openScreen(page, 'Webhooks')
      await page.getByLabel('Webhook URL').fill(receiver.url)
      await page.getByRole('button', { name: 'Save webhook' }).click()
      await page.getByText('Webhook saved and enabled').waitFor()
      await page.getByRole('button', { name: 'Reveal' }).click()
      assert.match(await page.getByLabel('Signing secret').inputValue(), /\S{16,}/)
      await page.getByRole('button', { name: 'Send a test event' }).click()
      const attempts = page.getByRole('table').filter({ hasText: 'Latency' })
      await attempts
        .getByRole('row')
        .filter({ hasText: 'HTTP 200' })
        .filter({ hasText: 'delivered' })
        .waitFor()
      assert.ok(receiver.received.some((event) => event.event === 'webhook.test'))

      // Events per POST above 1: the next test event arrives in a batch (a JSON array).
      await page.getByLabel('Events per POST').fill('10')
      const saved = page.waitForResponse((response) => response.url().includes('/set_webhook'))
      await page.getByRole('button', { name: 'Save webhook' }).click()
      assert.equal((await saved).status(), 200)
      await page.getByRole('button', { name: 'Send a test event' }).click()
      for (let waited = 0; receiver.batches === 0; waited += 50) {
        assert.ok(waited < 10_000, 'no batch reached the receiver within 10 s')
        await new Promise((resolve) => setTimeout(resolve, 50))
      }
      await screenshot(page, 'webhooks')

      await openScreen(page, 'Events')
      await page.getByRole('button', { name: /^Delivery log/ }).click()
      await page
        .getByRole('option')
        .filter({ hasText: 'webhook.test' })
        .filter({ hasText: 'HTTP 200' })
        .first()
        .waitFor()
      await screenshot(page, 'deliveries')
      await page
        .getByRole('listbox', { name: 'Delivery attempts' })
        .getByRole('option')
        .filter({ hasText: 'webhook.test' })
        .first()
        .click()
      await page.getByRole('heading', { name: /^webhook\.test/ }).waitFor()
      await page.getByRole('row').filter({ hasText: 'HTTP 200' }).first().waitFor()
      await screenshot(page, 'events')
    })

    test('more webhooks: one added with an event filter gets only its events, and is removed after confirmation', async () => {
      const crm = await startWebhookReceiver()
      try {
        await openScreen(page, 'Webhooks')
        await page.getByLabel('URL', { exact: true }).fill(crm.url)
        await page.getByLabel('Events', { exact: true }).fill('message.*')
        await page.getByRole('button', { name: 'Add webhook' }).click()
        const listed = page.getByRole('list', { name: 'Webhooks of this instance' })
        await listed.getByText(crm.url).waitFor()
        assert.match(await listed.innerText(), /message\.\*/)
        await listed.getByRole('button', { name: `Copy the signing secret of ${crm.url}` }).waitFor()
        const reply = await fetch(`${server.apiBase}/sandbox/accounts/${CONTACT_PHONE}/messages`, {
          method: 'POST',
          headers: { ...(await windowAuth()), 'content-type': 'application/json' },
          body: JSON.stringify({ to: INSTANCE_PHONE, text: 'For the CRM' }),
        })
        assert.equal(reply.status, 200)
        const deadline = Date.now() + 10_000
        while (!crm.received.some((event) => event.event === 'message.received') && Date.now() < deadline) {
          await new Promise((resolve) => setTimeout(resolve, 50))
        }
        assert.ok(crm.received.length > 0, 'the added webhook got the message')
        assert.ok(
          crm.received.every((event) => event.event.startsWith('message.')),
          'and nothing else',
        )
        await screenshot(page, 'webhooks-added')
        await listed.getByRole('button', { name: `Remove ${crm.url}` }).click()
        await page
          .getByRole('dialog', { name: 'Remove this webhook?' })
          .getByRole('button', { name: 'Remove webhook' })
          .click()
        await listed.waitFor({ state: 'detached' })
      } finally {
        await crm.close()
      }
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
      const created = await callAsScript(server.apiBase, 'instances', token)
      assert.equal(created.status, 200)
      assert.equal(created.body.status, 'success')
      await screenshot(page, 'tokens')
      await revealed.getByRole('button', { name: 'Done' }).click()
      await revealed.waitFor({ state: 'detached' })
    })

    test('a token can be renamed, and revoked after confirmation, after which scripts get 401', async () => {
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
      assert.equal((await callAsScript(server.apiBase, 'instances', token)).status, 200)

      await page.getByRole('button', { name: 'Revoke old script' }).click()
      await screenshot(page, 'tokens-revoke-confirmation')
      await dialog.getByRole('button', { name: 'Revoke token' }).click()
      await page.getByRole('row').filter({ hasText: 'old script' }).waitFor({ state: 'detached' })
      const refused = await callAsScript(server.apiBase, 'instances', token)
      assert.equal(refused.status, 401)
      assert.equal(refused.body.code, 'unauthorized')
    })

    test('every main screen, light and dark, has no serious accessibility violations', async () => {
      for (const theme of ['light', 'dark'] as const) {
        await page.emulateMedia({ colorScheme: theme })
        for (const name of SCREENS) {
          await openScreen(page, name)
          assert.deepEqual(await seriousViolations(page), [], `${name} in ${theme} mode`)
          if (theme === 'dark') await screenshot(page, `${name.toLowerCase()}-dark`)
        }
      }
      await page.emulateMedia({ colorScheme: 'light' })
      await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Settings' }).click()
      await page.getByText('Limits, pacing and retention').waitFor()
      await screenshot(page, 'settings')
    })

    test('an instance a script creates with curl appears in the open window at once', async () => {
      await openScreen(page, 'Instances')
      const cards = page.getByRole('list', { name: 'Instances' }).getByRole('listitem')
      await cards
        .filter({ hasText: `+${INSTANCE_PHONE}` })
        .first()
        .waitFor()
      const shown = await cards.count()
      const created = await fetch(`${server.apiBase}/admin/tokens/create`, {
        method: 'POST',
        headers: { ...(await windowAuth()), 'content-type': 'application/json' },
        body: JSON.stringify({ label: 'curl script' }),
      })
      const { token } = await created.json()
      const { stdout } = await execFileAsync('curl', [
        '--silent',
        '--fail-with-body',
        `${server.apiBase}/create_instance?access_token=${token}`,
      ])
      const { instance_id: instanceId } = JSON.parse(stdout)
      await cards.filter({ hasText: instanceId }).waitFor()
      assert.equal(await cards.count(), shown + 1)
    })

    test('an instance’s settings: its name, a behaviour and a proxy are saved from its page', async () => {
      const proxy = await startHttpProxy()
      try {
        await openScreen(page, 'Instances')
        const card = page
          .getByRole('list', { name: 'Instances' })
          .getByRole('listitem')
          .filter({ hasText: `+${INSTANCE_PHONE}` })
        const instanceId = (await card.locator('code').first().innerText()).trim()
        await card.getByRole('link').first().click()
        await page.getByLabel('Name', { exact: true }).fill('Support desk')
        await page.getByRole('switch', { name: 'Read incoming messages' }).check()
        await page.getByRole('switch', { name: 'Reject calls' }).check()
        await page.getByLabel('Text to the caller (optional)').fill('Please write instead.')
        await page.getByLabel('Proxy', { exact: true }).fill(`http://127.0.0.1:${proxy.port}`)
        await page.getByRole('button', { name: 'Save settings' }).click()
        await page.getByRole('status').filter({ hasText: 'Settings saved.' }).waitFor()
        const read = async () =>
          (
            await (
              await fetch(`${server.apiBase}/instance?instance_id=${instanceId}`, {
                headers: { ...(await windowAuth()) },
              })
            ).json()
          ).instance
        const saved = await read()
        assert.equal(saved.name, 'Support desk')
        assert.equal(saved.behaviours.auto_read, true)
        assert.deepEqual(saved.calls, { reject: true, message: 'Please write instead.' })
        assert.equal(saved.proxy, `http://127.0.0.1:${proxy.port}`)
        await page.getByRole('heading', { level: 1, name: /^Support desk/ }).waitFor()
        await screenshot(page, 'instance-settings')
        const deadline = Date.now() + 10_000
        while (!proxy.tunnels.length && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50))
        assert.ok(proxy.tunnels.length > 0, 'the instance reconnected through the proxy')
        await page.getByRole('button', { name: 'Go direct' }).click()
        await page.getByRole('button', { name: 'Go direct' }).waitFor({ state: 'detached' })
        assert.equal((await read()).proxy, null)
        while ((await read()).state !== 'connected' && Date.now() < deadline + 10_000) {
          await new Promise((resolve) => setTimeout(resolve, 50))
        }
      } finally {
        await proxy.close()
      }
    })

    test('destroying an instance asks first, naming the consequence, then replaces its id', async () => {
      await openScreen(page, 'Instances')
      const card = page.getByRole('listitem').filter({ hasText: `+${INSTANCE_PHONE}` })
      const oldId = (await card.locator('code').first().innerText()).trim()
      await card.getByRole('button', { name: 'Destroy' }).click()
      const dialog = page.getByRole('dialog', { name: new RegExp(`^Destroy .*\\+${INSTANCE_PHONE}.*\\?$`) })
      assert.match(await dialog.innerText(), /stops working: scripts that use it get 404/)
      await screenshot(page, 'instance-destroy-confirmation')
      await dialog.getByRole('button', { name: 'Cancel' }).click()
      await dialog.waitFor({ state: 'detached' })
      assert.match(await card.innerText(), /Connected/)

      await card.getByRole('button', { name: 'Destroy' }).click()
      await dialog.getByRole('button', { name: 'Destroy instance' }).click()
      await page
        .getByRole('listitem')
        .filter({ hasText: `+${INSTANCE_PHONE}` })
        .waitFor({ state: 'detached' })
      // The logout shows for a moment as the old card without its account; then the replaced id is gone.
      await page.waitForFunction((id) => !document.body.innerText.includes(id), oldId)
      assert.equal(await page.getByText(oldId).count(), 0)
      await page.getByRole('listitem').filter({ hasText: 'No account linked' }).first().waitFor()
    })

    test('the UI runs under the server’s Content Security Policy without violations', () => {
      assert.deepEqual(cspViolations, [])
    })
  },
)
