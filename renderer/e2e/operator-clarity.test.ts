import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import type { Page } from 'playwright-core'
import { seriousViolations } from './axe'
import { chromiumMissing } from './browser'
import { screenshot } from './screenshots'
import { startWebhookReceiver, type WebhookReceiver } from './webhook-receiver'
import { createAndScan } from './window-link'
import { windowPerSuite } from './window-fixture'

const INSTANCE_PHONE = '15550046666'
const ANN = '15550047777'

/** Waits (polling) until `condition` holds; the test runner's timeout bounds it. */
async function until(condition: () => boolean | Promise<boolean>): Promise<void> {
  while (!(await condition())) await new Promise((resolve) => setTimeout(resolve, 50))
}

describe(
  'operator clarity in a browser: names, each webhook’s health and redelivery, against the headless server',
  { skip: chromiumMissing },
  () => {
    const ui = windowPerSuite()
    let page: Page
    let receiver: WebhookReceiver
    let instanceId = ''

    /** Calls an API operation beside the window, with the window's own session. */
    const api = (operation: string, params: Record<string, unknown> = {}) => ui.request(operation, params)

    async function openScreen(name: string): Promise<void> {
      await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name, exact: true }).click()
      await page.getByRole('heading', { level: 1, name }).waitFor()
    }

    before(async () => {
      receiver = await startWebhookReceiver(400)
      page = ui.page
    })

    after(async () => {
      await receiver?.close()
    })

    test('the create button sends the name typed beside it; the card shows it', async () => {
      await page.getByLabel('Name', { exact: true }).fill('Front desk')
      await createAndScan(page, { phone: INSTANCE_PHONE, name: 'Desk phone' })
      await page.locator('.badge', { hasText: 'Connected' }).waitFor()
      const { instances } = (await api('instances')).body
      assert.equal(instances.length, 1)
      assert.equal(instances[0].name, 'Front desk')
      assert.equal(instances[0].account?.number, INSTANCE_PHONE)
      instanceId = instances[0].instance_id
      const added = await api('sandbox/accounts', { phone: ANN, name: 'Ann' })
      assert.equal(added.status, 200, JSON.stringify(added.body))
    })

    test('an added webhook whose receiver fails shows its failing attempts with its URL, and is redelivered from the window once fixed', async () => {
      await openScreen('Webhooks')
      await page.getByLabel('URL', { exact: true }).fill(receiver.url)
      await page.getByLabel('Events', { exact: true }).fill('message.received')
      await page.getByRole('button', { name: 'Add webhook' }).click()
      const listed = page.getByRole('list', { name: 'Webhooks of this instance' })
      const item = listed.getByRole('listitem').filter({ hasText: receiver.url })
      await item.waitFor()

      const sent = await api(`sandbox/accounts/${ANN}/messages`, {
        to: INSTANCE_PHONE,
        text: 'Refused at first',
      })
      assert.equal(sent.status, 200, JSON.stringify(sent.body))
      await item.locator('.badge', { hasText: 'Failing' }).waitFor()
      assert.match(await item.innerText(), /last error: HTTP 400/)
      await item.getByText(/^Attempts \(\d+\)$/).click()
      const row = item.getByRole('row').filter({ hasText: 'failed' })
      await row.waitFor()
      assert.match(await row.innerText(), new RegExp(receiver.url.replace(/[.:/]/g, '\\$&')))
      assert.equal(receiver.received.length, 0, 'the receiver accepted nothing yet')
      await screenshot(page, 'webhooks-health')

      receiver.answer = 200
      await item.getByRole('button', { name: `Redeliver failed events to ${receiver.url}` }).click()
      await item.getByRole('status').filter({ hasText: '1 failed event queued for delivery' }).waitFor()
      await until(() =>
        receiver.received.some(
          (event) => event.event === 'message.received' && event.data?.text === 'Refused at first',
        ),
      )
      await item.locator('.badge', { hasText: 'Delivering' }).waitFor()
    })

    test('an added webhook’s URL and event filter are edited and its secret rotated from the window', async () => {
      const item = page
        .getByRole('list', { name: 'Webhooks of this instance' })
        .getByRole('listitem')
        .filter({ hasText: receiver.url })
      const before = (await api('webhooks', { instance_id: instanceId })).body.webhooks[0]
      await item.getByRole('button', { name: `Edit ${receiver.url}` }).click()
      const form = item.getByRole('form', { name: `Edit ${receiver.url}` })
      await form.getByLabel('Events').fill('message.*, group.*')
      await form.getByRole('button', { name: 'Save' }).click()
      await item.getByRole('status').filter({ hasText: 'Saved.' }).waitFor()
      await item.getByRole('button', { name: `Rotate secret of ${receiver.url}` }).click()
      await item.getByRole('status').filter({ hasText: 'Secret replaced' }).waitFor()
      const after = (await api('webhooks', { instance_id: instanceId })).body.webhooks[0]
      assert.deepEqual(after.events, ['message.*', 'group.*'])
      assert.equal(after.url, receiver.url)
      assert.notEqual(after.secret, before.secret)
    })

    test('event rows name their instance, and an event’s summary says where it stands with each webhook', async () => {
      await openScreen('Events')
      const rows = page.getByRole('listbox', { name: 'Events' }).getByRole('option')
      const message = rows.filter({ hasText: 'message.received' }).first()
      await message.waitFor()
      assert.match(await message.innerText(), /Front desk/)
      assert.ok((await rows.filter({ hasText: 'Front desk' }).count()) >= 2, 'every row names it')
      await message.click()
      const summary = page.getByRole('list', { name: 'Delivery per webhook' })
      await summary
        .getByRole('listitem')
        .filter({ hasText: receiver.url })
        .filter({ hasText: 'delivered' })
        .waitFor()
      await screenshot(page, 'events-per-webhook')
    })

    test('the Webhooks and Events screens, light and dark, have no serious accessibility violations', async () => {
      for (const theme of ['light', 'dark'] as const) {
        await page.emulateMedia({ colorScheme: theme })
        for (const name of ['Webhooks', 'Events'] as const) {
          await openScreen(name)
          if (name === 'Webhooks') await page.locator('.added-webhook summary').first().click()
          assert.deepEqual(await seriousViolations(page), [], `${name} in ${theme} mode`)
        }
      }
      await page.emulateMedia({ colorScheme: 'light' })
    })
  },
)
