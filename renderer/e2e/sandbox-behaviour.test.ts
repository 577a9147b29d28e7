import assert from 'node:assert/strict'
import { before, describe, test } from 'node:test'
import type { Page } from 'playwright-core'
import { seriousViolations } from './axe'
import { chromiumMissing } from './browser'
import { createAndScan } from './window-link'
import { windowPerSuite } from './window-fixture'

const INSTANCE_PHONE = '15550006666'
const CONTACT = '15550006667'

describe('the sandbox panel changes how a contact’s phone behaves', { skip: chromiumMissing }, () => {
  const ui = windowPerSuite()
  let page: Page
  let instanceId = ''

  before(async () => {
    page = ui.page
    await createAndScan(page, { phone: INSTANCE_PHONE })
    await page.locator('.state .badge', { hasText: /^State:\s*Connected$/ }).waitFor()
    instanceId = (await page.locator('.facts dd code').first().innerText()).trim()
    await ui.ok('sandbox/accounts', { phone: CONTACT, name: 'Reader' })
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

    const { behaviour } = await ui.ok<{ behaviour: Record<string, unknown> }>(
      `sandbox/accounts/${CONTACT}/behaviour`,
    )
    assert.equal(behaviour.reads, 'instantly')
    assert.equal(behaviour.online, 'always')
    const { message: sent } = await ui.ok<{ message: { key: { id: string } } }>('send_message', {
      instance_id: instanceId,
      number: CONTACT,
      type: 'text',
      message: 'did you read this?',
    })
    // The contact's phone read it by itself: the app sees the read receipt as message.status read.
    const deadline = Date.now() + 30_000
    for (;;) {
      const { events } = await ui.ok<{ events: Array<{ data: { id: string; status: string } }> }>(
        `events?instance_id=${instanceId}&event=message.status&limit=100`,
      )
      if (events.some((event) => event.data.id === sent.key.id && event.data.status === 'read')) break
      assert.ok(Date.now() < deadline, 'no read receipt reached the app within 30 s')
      await new Promise((resolve) => setTimeout(resolve, 200))
    }
  })
})
