import assert from 'node:assert/strict'
import { before, describe, test } from 'node:test'
import { setTimeout as sleep } from 'node:timers/promises'
import type { Page } from 'playwright-core'
import { seriousViolations } from './axe'
import { chromiumMissing } from './browser'
import { screenshot } from './screenshots'
import { createAndScan } from './window-link'
import { windowPerSuite } from './window-fixture'

const INSTANCE_PHONE = '15550004444'

interface InstanceView {
  state: string
  cause: string
  since: number
  last_error: { code: number | null; cause: string } | null
}

interface StateEvent {
  timestamp: string
  data: { state: string; previous_state: string; reason: string | null }
}

describe(
  'the sandbox panel throws network faults at a linked phone, and the instance shows each',
  { skip: chromiumMissing },
  () => {
    const ui = windowPerSuite()
    let page: Page
    let instanceId = ''

    /** Reads an API operation with the window's own credential, as a script beside the window would. */
    const call = <T>(operation: string, params: Record<string, string>) =>
      ui.ok<T>(`${operation}?${new URLSearchParams(params)}`)
    const instance = async () =>
      (await call<{ instance: InstanceView }>('instance', { instance_id: instanceId })).instance
    const stateEvents = async () =>
      (
        await call<{ events: StateEvent[] }>('events', {
          instance_id: instanceId,
          event: 'connection.update',
          limit: '100',
        })
      ).events.reverse()

    /** The state badge showing this state's label (not a longer one containing it: Connected, Disconnected). */
    const badge = (label: string) =>
      page.locator('.state .badge', { hasText: new RegExp(`^State:\\s*${label}$`) })
    const cause = () => page.locator('.state .cause')
    const lastError = () =>
      page
        .locator('.facts dt', { hasText: 'Last connection error' })
        .locator('xpath=following-sibling::dd[1]')

    /** The Sandbox screen with the instance's phone chosen: its panel holds the faults. */
    async function openPhonePanel(): Promise<void> {
      await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Sandbox' }).click()
      await page
        .getByRole('list', { name: 'Sandbox accounts' })
        .getByRole('button', { name: new RegExp(`\\+${INSTANCE_PHONE} \\(phone of a linked instance\\)`) })
        .click()
      await page.getByRole('heading', { name: 'Network faults for this phone’s linked devices' }).waitFor()
    }

    async function openInstance(): Promise<void> {
      await page.evaluate((hash) => (window.location.hash = hash), `#/instances/${instanceId}`)
      await page.getByRole('heading', { level: 1, name: new RegExp(`\\+${INSTANCE_PHONE}`) }).waitFor()
    }

    before(async () => {
      page = ui.page
      await createAndScan(page, { phone: INSTANCE_PHONE })
      await badge('Connected').waitFor()
      instanceId = (await page.locator('.facts dd code').first().innerText()).trim()
    })

    test('“Take over the session” closes the instance with 440: it shows the cause “connection replaced” and the code', async () => {
      await openPhonePanel()
      await page.getByRole('button', { name: 'Take over the session (440 replaced)' }).click()
      await page.getByRole('status').filter({ hasText: 'its devices closed with 440' }).waitFor()
      await screenshot(page, 'sandbox-faults')
      assert.deepEqual(await seriousViolations(page), [], 'the panel with its faults passes axe')

      await openInstance()
      await cause().filter({ hasText: 'connection replaced' }).waitFor()
      await badge('Disconnected').waitFor()
      assert.match(await lastError().innerText(), /\(code 440\)/)
      const view = await instance()
      assert.equal(view.state, 'disconnected')
      assert.equal(view.cause, 'connection_replaced')
      assert.equal(view.last_error?.code, 440)
    })

    test('“Fail next login” with 409: the next reconnect fails with that code and its cause', async () => {
      await openPhonePanel()
      const form = page.getByRole('form', { name: 'Fail the next login' })
      await form.getByLabel('Fail the next login with').selectOption('409')
      await form.getByRole('button', { name: 'Fail next login' }).click()
      await page.getByRole('status').filter({ hasText: 'fails with 409' }).waitFor()

      await openInstance()
      await page.getByRole('button', { name: 'Reconnect', exact: true }).click()
      await cause().filter({ hasText: 'bad user agent' }).waitFor()
      assert.match(await lastError().innerText(), /\(code 409\)/)
      const view = await instance()
      assert.equal(view.state, 'disconnected')
      assert.equal(view.cause, 'bad_user_agent')
      assert.equal(view.last_error?.code, 409)

      // The failure was for one login only: the next reconnect connects.
      await page.getByRole('button', { name: 'Reconnect', exact: true }).click()
      await badge('Connected').waitFor()
      assert.equal((await instance()).state, 'connected')
    })

    test('“Cut” with a duration: the instance is disconnected, and connects again only once that time has passed', async () => {
      const downForSeconds = 4
      await openPhonePanel()
      const form = page.getByRole('form', { name: 'Cut the network' })
      await form.getByLabel('down for (seconds, optional)').fill(String(downForSeconds))
      const seen = (await stateEvents()).length
      const cutAt = Date.now()
      await form.getByRole('button', { name: 'Cut' }).click()
      await page
        .getByRole('status')
        .filter({ hasText: `down for ${downForSeconds} s` })
        .waitFor()

      const changes = async () => (await stateEvents()).slice(seen).map((event) => event.data.state)
      while (!(await changes()).includes('disconnected')) await sleep(100)

      await openInstance()
      await badge('Connected').waitFor({ timeout: 60_000 })
      assert.equal((await changes()).at(-1), 'connected')
      const view = await instance()
      assert.equal(view.state, 'connected')
      // Unix seconds: connected no earlier than the second in which the down time ended.
      assert.ok(
        view.since >= Math.floor((cutAt + downForSeconds * 1000) / 1000),
        `connected at ${view.since}, the network was down until ${(cutAt + downForSeconds * 1000) / 1000}`,
      )
    })
  },
)
