import assert from 'node:assert/strict'
import { before, describe, test } from 'node:test'
import type { Page } from 'playwright-core'
import { chromiumMissing } from './browser'
import { seriousViolations } from './axe'
import { createAndScan } from './window-link'
import { windowPerSuite } from './window-fixture'

const SHOP = '15550034444'
const ANN = '15550035555'

describe(
  'labels on the chats panel in a browser, for a Business account in sandbox mode',
  { skip: chromiumMissing },
  () => {
    const ui = windowPerSuite()
    let page: Page

    const sandbox = (path: string, body: unknown) => ui.ok(`sandbox${path}`, body)

    before(async () => {
      page = ui.page
      await sandbox('/accounts', { phone: SHOP, name: 'Corner Shop', business: true })
      await sandbox('/accounts', { phone: ANN, name: 'Ann' })
      await createAndScan(page, { phone: SHOP })
      await page.locator('.badge', { hasText: 'Connected' }).waitFor()
    })

    test('a label is created and put on a chat from its row: the phone has it, the row shows it, axe finds nothing', async () => {
      await sandbox(`/accounts/${ANN}/messages`, { to: SHOP, text: 'Ann orders' })
      const chats = page.getByRole('list', { name: 'Chats' })
      const ann = chats.getByRole('listitem').filter({ hasText: 'Ann orders' })
      await ann.waitFor()

      const form = page.getByRole('form', { name: 'New label' })
      await form.getByLabel('New label').fill('Paid')
      await form.getByRole('button', { name: 'Create label' }).click()
      await page.getByRole('list', { name: 'Labels' }).getByText('Paid').waitFor()

      const picker = ann.getByRole('group', { name: /^Labels of / })
      await picker.getByRole('combobox', { name: /^Label to put on / }).selectOption({ label: 'Paid' })
      await picker.getByRole('button', { name: 'Add label' }).click()
      await picker.getByRole('button', { name: /^Take Paid off / }).waitFor()

      const state = await ui.ok<{
        labels: Record<string, { name: string }>
        labeledChats: Record<string, string[]>
      }>(`sandbox/accounts/${SHOP}/app-state`)
      const [id] = Object.entries(state.labels).find(([, label]) => label.name === 'Paid') ?? []
      assert.ok(id, 'the phone has the label')
      assert.deepEqual(state.labeledChats[id], [`${ANN}@s.whatsapp.net`], 'the phone shows it on Ann’s chat')
      assert.deepEqual(await seriousViolations(page), [])
    })

    test('a label the phone puts on a chat appears on the chat’s row', async () => {
      await sandbox(`/accounts/${SHOP}/labels`, { label: '50', name: 'VIP', color: 7 })
      await sandbox(`/accounts/${SHOP}/labels`, { label: '50', chat: ANN, labeled: true })
      const ann = page
        .getByRole('list', { name: 'Chats' })
        .getByRole('listitem')
        .filter({ hasText: 'Ann orders' })
      await ann.getByRole('button', { name: /^Take VIP off / }).waitFor()
      await ann.getByRole('button', { name: /^Take VIP off / }).click()
      await ann.getByRole('button', { name: /^Take VIP off / }).waitFor({ state: 'detached' })
      const state = await ui.ok<{ labeledChats: Record<string, string[]> }>(
        `sandbox/accounts/${SHOP}/app-state`,
      )
      assert.deepEqual(state.labeledChats['50'], [])
    })
  },
)
