import assert from 'node:assert/strict'
import { before, describe, test } from 'node:test'
import type { Page } from 'playwright-core'
import { chromiumMissing } from './browser'
import { linkInWindow } from './window-link'
import { windowPerSuite } from './window-fixture'

const ANN = '15550034444'
const BEN = '15550035555'

describe(
  'status updates in a browser, against the headless server in sandbox mode',
  { skip: chromiumMissing },
  () => {
    const ui = windowPerSuite()
    let page: Page
    let instancePhone = ''

    /** Calls the sandbox's control API through the app, with the window's own credential. */
    const sandbox = (method: 'GET' | 'POST', path: string, body?: unknown) =>
      ui.ok(`sandbox${path}`, method === 'GET' ? undefined : (body ?? {}))

    before(async () => {
      page = ui.page
      instancePhone = await linkInWindow(page)
      await sandbox('POST', '/accounts', { phone: ANN, name: 'Ann' })
      await sandbox('POST', '/accounts', { phone: BEN, name: 'Ben' })
    })

    test('a text status posted from the window reaches the contact who wrote, with its font', async () => {
      await sandbox('POST', `/accounts/${ANN}/messages`, { to: instancePhone, text: 'Ann writes first' })
      await page.getByRole('list', { name: 'Contacts' }).getByRole('link', { name: 'Ann' }).waitFor()
      const form = page.getByRole('form', { name: 'Post a status' })
      await form.getByLabel('Text or caption').fill('Open until 6 pm')
      await form.getByLabel('Font').selectOption({ label: 'Script' })
      await form.getByRole('button', { name: 'Post status' }).click()
      await form.getByRole('status').filter({ hasText: 'Posted to 1 contact.' }).waitFor()
      const { messages } = await sandbox('GET', `/accounts/${ANN}/messages`)
      const status = (messages as Array<{ chat: string; text: string | null }>).find(
        (entry) => entry.chat === 'status@broadcast',
      )
      assert.equal(status?.text, 'Open until 6 pm', 'Ann’s phone got the status')
      const ben = (await sandbox('GET', `/accounts/${BEN}/messages`)).messages as Array<{ chat: string }>
      assert.ok(!ben.some((entry) => entry.chat === 'status@broadcast'), 'Ben never wrote: not a contact')
      await page
        .getByRole('list', { name: 'Status updates' })
        .getByRole('listitem')
        .filter({ hasText: 'Open until 6 pm' })
        .waitFor()
    })

    test('a contact’s status shows once status updates are received, and View sends its poster the read receipt', async () => {
      const settings = page.getByRole('form', { name: 'Settings' })
      await settings.getByRole('switch', { name: 'Ignore status updates' }).uncheck()
      await settings.getByRole('button', { name: 'Save settings' }).click()
      await settings.getByRole('status').filter({ hasText: 'Settings saved.' }).waitFor()
      const { id } = await sandbox('POST', `/accounts/${BEN}/messages`, {
        to: 'status@broadcast',
        text: 'Ben is away',
      })
      const item = page
        .getByRole('list', { name: 'Status updates' })
        .getByRole('listitem')
        .filter({ hasText: 'Ben is away' })
      await item.waitFor()
      await item.getByRole('button', { name: 'View' }).click()
      await item.getByRole('button', { name: 'Viewed' }).waitFor()
      const { ids } = await sandbox('GET', `/accounts/${BEN}/reads`)
      assert.ok((ids as string[]).includes(id), 'Ben sees his status viewed')
    })
  },
)
