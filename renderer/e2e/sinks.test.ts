import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import type { Page } from 'playwright-core'
import { brokerMissing, startNats, type BrokerServer } from '../../electron/core/testing/broker-servers'
import { consumeNats } from '../../electron/core/testing/broker-consumers'
import { seriousViolations } from './axe'
import { chromiumMissing } from './browser'
import { screenshot } from './screenshots'
import { linkInWindow } from './window-link'
import { windowPerSuite } from './window-fixture'

const ANN = '15550792222'
const STREAM = 'LINKDESK_WINDOW'
const PASSWORD = 'never-in-the-window'

describe(
  'broker sinks on the Webhooks screen, against the headless server in sandbox mode and a real NATS server',
  { skip: chromiumMissing || brokerMissing('nats') },
  () => {
    const ui = windowPerSuite()
    let page: Page
    let nats: BrokerServer
    let instancePhone = ''
    let instanceId = ''

    const fromAnn = (text: string) => ui.ok(`sandbox/accounts/${ANN}/messages`, { to: instancePhone, text })

    /** The texts of the message.received events the stream holds for the instance, in stream order. */
    async function atConsumer(expected: string[]): Promise<string[]> {
      const taken = await consumeNats(
        nats.url,
        STREAM,
        `linkdesk.${instanceId}.message.received`,
        (messages) =>
          expected.every((text) =>
            messages.some(({ event }) => (event.data as { text?: string }).text === text),
          ),
      )
      return taken.map(({ event }) => (event.data as { text: string }).text)
    }

    before(async () => {
      nats = await startNats()
      page = ui.page
      instancePhone = await linkInWindow(page)
      instanceId = /#\/instances\/([^/?]+)/.exec(page.url())?.[1] ?? ''
      assert.ok(instanceId, `the instance page's address names the instance: ${page.url()}`)
      await ui.ok('sandbox/accounts', { phone: ANN, name: 'Ann' })
    })

    after(async () => {
      await nats?.dispose()
    })

    test('a NATS sink added from the window gets the events, shows its health through a broker outage, and is removed after confirmation', async () => {
      await page
        .getByRole('navigation', { name: 'Main' })
        .getByRole('link', { name: 'Webhooks', exact: true })
        .click()
      await page.getByRole('heading', { level: 1 }).filter({ hasText: 'Webhooks' }).waitFor()
      const form = page.getByRole('form', { name: 'Add a broker sink' })

      // A wrong address is refused with the API's reason, and nothing is listed.
      await form.getByLabel('Broker', { exact: true }).selectOption('nats')
      await form.getByLabel('Broker address').fill('http://127.0.0.1:4222')
      await form.getByRole('button', { name: 'Add sink' }).click()
      await page.getByText(/url must be a nats address/).waitFor()
      assert.equal(await page.getByRole('list', { name: 'Sinks of this instance' }).count(), 0)

      await form
        .getByLabel('Broker address')
        .fill(nats.url.replace('nats://', `nats://linkdesk:${PASSWORD}@`))
      await form.getByLabel('Stream').fill(STREAM)
      await form.getByLabel('Sink events').fill('message.*')
      await form.getByRole('button', { name: 'Add sink' }).click()
      const listed = page.getByRole('list', { name: 'Sinks of this instance' })
      await listed.getByText('NATS JetStream').waitFor()
      const shown = await listed.innerText()
      assert.match(shown, /nats:\/\/linkdesk:\*\*\*@127\.0\.0\.1/)
      assert.match(shown, new RegExp(`stream ${STREAM}`))
      assert.doesNotMatch(await page.content(), new RegExp(PASSWORD), 'the password is never in the window')

      await fromAnn('to the bus')
      assert.deepEqual(await atConsumer(['to the bus']), ['to the bus'])
      await listed.getByText(/Last publish confirmed at/).waitFor({ timeout: 30_000 })
      assert.deepEqual(await seriousViolations(page), [])
      await screenshot(page, 'webhooks-sinks')

      await nats.stop()
      await fromAnn('while the bus is down')
      await listed
        .getByRole('status')
        .filter({ hasText: /failed, retrying at .*nats: / })
        .waitFor({ timeout: 30_000 })
      assert.deepEqual(await seriousViolations(page), [])
      await nats.start()
      assert.deepEqual(await atConsumer(['to the bus', 'while the bus is down']), [
        'to the bus',
        'while the bus is down',
      ])
      await listed.getByText(/Last publish confirmed at/).waitFor({ timeout: 60_000 })

      await listed.getByRole('button', { name: /^Remove the NATS JetStream sink / }).click()
      await page
        .getByRole('dialog', { name: 'Remove this sink?' })
        .getByRole('button', { name: 'Remove sink' })
        .click()
      await listed.waitFor({ state: 'detached' })
    })
  },
)
