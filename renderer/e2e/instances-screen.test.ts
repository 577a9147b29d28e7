import assert from 'node:assert/strict'
import { before, describe, test } from 'node:test'
import type { Page } from 'playwright-core'
import type { SandboxAccountView } from '../../electron/core/shared-types'
import { seriousViolations } from './axe'
import { chromiumMissing } from './browser'
import { screenshot } from './screenshots'
import { windowPerSuite } from './window-fixture'

const MANY = 300
const LINKED_PHONE = '15550045555'

describe(
  'the Instances screen with hundreds of instances, against the headless server in sandbox mode',
  { skip: chromiumMissing },
  () => {
    const ui = windowPerSuite()
    let page: Page
    let linkedId = ''
    /** Calls an API operation beside the window, with the window's own session. */
    const api = (operation: string, params: Record<string, unknown> = {}) => ui.request(operation, params)

    const shopName = (index: number) => `Shop ${String(index).padStart(3, '0')}`
    const status = () => page.getByRole('status').filter({ hasText: /^Showing / })
    const counts = () => page.getByLabel('Instances by state')

    before(async () => {
      page = ui.page
      for (let start = 0; start < MANY; start += 25) {
        await Promise.all(
          Array.from({ length: Math.min(25, MANY - start) }, async (_, offset) => {
            const created = await api('create_instance', { name: shopName(start + offset) })
            assert.equal(created.status, 200, JSON.stringify(created.body))
          }),
        )
      }
      const linked = await api('create_instance', { name: 'Front desk' })
      linkedId = linked.body.instance_id
      const scanned = await api('sandbox_scan', { instance_id: linkedId, phone: LINKED_PHONE, name: 'Desk' })
      assert.equal(scanned.status, 200, JSON.stringify(scanned.body))
    })

    test('300 instances are counted by state and listed in the table, which the window remembers', async () => {
      await page.reload()
      await counts()
        .filter({ hasText: `${MANY + 1} instances: 1 connected · ${MANY} need a scan` })
        .waitFor()
      await page.getByRole('group', { name: 'View' }).getByRole('button', { name: 'Table' }).click()
      const table = page.getByRole('table', { name: 'Instances' })
      await status()
        .filter({ hasText: `Showing all ${MANY + 1}` })
        .waitFor()
      assert.equal(await table.locator('tbody tr').count(), MANY + 1)
      const names = await table.getByRole('rowheader').allInnerTexts()
      assert.deepEqual(
        [...names].sort(),
        [...Array.from({ length: MANY }, (_, index) => shopName(index)), 'Front desk'].sort(),
      )
      await page.reload()
      await table.waitFor()
      assert.equal(
        await page.getByRole('button', { name: 'Table' }).getAttribute('aria-pressed'),
        'true',
        'the table view is remembered',
      )
    })

    test('search finds an instance by name, by number and by id; the state filter and sorting narrow and order', async () => {
      const table = page.getByRole('table', { name: 'Instances' })
      const search = page.getByLabel('Search by name, number or id')
      await search.fill('shop 123')
      await status()
        .filter({ hasText: `Showing 1 of ${MANY + 1}` })
        .waitFor()
      assert.deepEqual(await table.getByRole('rowheader').allInnerTexts(), ['Shop 123'])
      await search.fill(`+${LINKED_PHONE}`)
      await status()
        .filter({ hasText: `Showing 1 of ${MANY + 1}` })
        .waitFor()
      assert.deepEqual(await table.getByRole('rowheader').allInnerTexts(), ['Front desk'])
      const someId = (await api('instances')).body.instances[7].instance_id as string
      await search.fill(someId)
      await status()
        .filter({ hasText: `Showing 1 of ${MANY + 1}` })
        .waitFor()
      assert.deepEqual(await table.getByRole('rowheader').allInnerTexts(), [shopName(7)])
      await search.fill('')

      await page.getByLabel('State', { exact: true }).selectOption({ label: 'Connected' })
      await status()
        .filter({ hasText: `Showing 1 of ${MANY + 1}` })
        .waitFor()
      assert.deepEqual(await table.getByRole('rowheader').allInnerTexts(), ['Front desk'])
      await page.getByLabel('State', { exact: true }).selectOption({ label: 'Needs a scan (not linked)' })
      await status()
        .filter({ hasText: `Showing ${MANY} of ${MANY + 1}` })
        .waitFor()
      await search.fill('shop 29')
      await status()
        .filter({ hasText: `Showing 10 of ${MANY + 1}` })
        .waitFor()
      await page.getByLabel('Sort by').selectOption({ label: 'Newest first' })
      const createdAt = new Map<string, number>(
        (await api('instances')).body.instances.map((instance: { name: string; created_at: number }) => [
          instance.name,
          instance.created_at,
        ]),
      )
      const newest = (await table.getByRole('rowheader').allInnerTexts()).map(
        (name) => createdAt.get(name) ?? 0,
      )
      assert.equal(newest.length, 10)
      assert.deepEqual(
        newest,
        [...newest].sort((a, b) => b - a),
        'newest first',
      )
      await page.getByLabel('Sort by').selectOption({ label: 'Name' })
      assert.deepEqual(
        await table.getByRole('rowheader').allInnerTexts(),
        Array.from({ length: 10 }, (_, index) => shopName(290 + index)),
      )
      await screenshot(page, 'instances-table')
      await page.getByLabel('State', { exact: true }).selectOption({ label: 'All states' })
      await search.fill('')
    })

    test('the Instances screen, cards and table, light and dark, has no serious accessibility violations', async () => {
      for (const theme of ['light', 'dark'] as const) {
        await page.emulateMedia({ colorScheme: theme })
        for (const view of ['Cards', 'Table'] as const) {
          await page.getByRole('group', { name: 'View' }).getByRole('button', { name: view }).click()
          await status().waitFor()
          assert.deepEqual(await seriousViolations(page), [], `${view} in ${theme} mode`)
        }
      }
      await page.emulateMedia({ colorScheme: 'light' })
    })

    test('Delete in the window removes the instance and its card, with no replacement; its id is then 404', async () => {
      await page.getByRole('group', { name: 'View' }).getByRole('button', { name: 'Cards' }).click()
      await page.getByLabel('Search by name, number or id').fill('Front desk')
      const cards = page.getByRole('list', { name: 'Instances' }).getByRole('listitem')
      await status()
        .filter({ hasText: `Showing 1 of ${MANY + 1}` })
        .waitFor()
      const card = cards.filter({ has: page.getByRole('heading', { name: 'Front desk' }) })
      assert.match(
        await card.innerText(),
        new RegExp(`Desk \\+${LINKED_PHONE}`),
        'the card names its account',
      )
      await card.getByRole('button', { name: 'Delete', exact: true }).click()
      const dialog = page.getByRole('dialog', { name: /^Delete Front desk: .*\?$/ })
      await screenshot(page, 'instances-delete')
      await dialog.getByRole('button', { name: 'Delete instance' }).click()
      await status()
        .filter({ hasText: `Showing 0 of ${MANY}` })
        .waitFor()
      await counts()
        .filter({ hasText: `${MANY} instances: ${MANY} need a scan` })
        .waitFor()
      assert.equal(await card.count(), 0)

      const gone = await api('instance', { instance_id: linkedId })
      assert.equal(gone.status, 404)
      assert.equal(gone.body.code, 'instance_not_found')
      const { instances } = (await api('instances')).body
      assert.equal(instances.length, MANY, 'nothing replaced it')
      assert.ok(instances.every((instance: { name: string | null }) => instance.name?.startsWith('Shop ')))
      const { accounts } = await ui.ok<{ accounts: SandboxAccountView[] }>('sandbox/accounts')
      const phone = accounts.find((account) => account.phone === LINKED_PHONE)
      assert.deepEqual(phone?.linkedDevices, [], 'the phone no longer lists the device')
      await page.getByLabel('Search by name, number or id').fill('')
    })

    test('“Reconnect every disconnected one” reconnects the replaced instances, which then receive again', async () => {
      const kiosks = [
        { name: 'Kiosk A', phone: '15550048881' },
        { name: 'Kiosk B', phone: '15550048882' },
      ]
      const ids: string[] = []
      for (const kiosk of kiosks) {
        const created = await api('create_instance', { name: kiosk.name })
        ids.push(created.body.instance_id)
        const scanned = await api('sandbox_scan', {
          instance_id: created.body.instance_id,
          phone: kiosk.phone,
        })
        assert.equal(scanned.status, 200, JSON.stringify(scanned.body))
      }
      await counts().filter({ hasText: '2 connected' }).waitFor()
      for (const kiosk of kiosks) {
        const replaced = await api(`sandbox/accounts/${kiosk.phone}/replace`)
        assert.equal(replaced.status, 200, JSON.stringify(replaced.body))
      }
      await counts().filter({ hasText: '2 replaced' }).waitFor()
      await page.getByRole('button', { name: 'Reconnect every disconnected one (2)' }).click()
      await page.getByRole('status').filter({ hasText: 'Reconnected 2 of 2.' }).waitFor()
      await counts()
        .filter({ hasText: `${MANY + 2} instances: 2 connected · ${MANY} need a scan` })
        .waitFor()

      const contact = await api('sandbox/accounts', { phone: '15550048889', name: 'Visitor' })
      assert.equal(contact.status, 200, JSON.stringify(contact.body))
      for (const [index, kiosk] of kiosks.entries()) {
        const text = `Hello ${kiosk.name}`
        const sent = await api('sandbox/accounts/15550048889/messages', { to: kiosk.phone, text })
        assert.equal(sent.status, 200, JSON.stringify(sent.body))
        for (;;) {
          const { events } = (await api('events', { instance_id: ids[index], event: 'message.received' }))
            .body
          if (events.some((event: { data: { text?: string } }) => event.data.text === text)) break
          await new Promise((resolve) => setTimeout(resolve, 100))
        }
      }
    })
  },
)
