import assert from 'node:assert/strict'
import { before, describe, test } from 'node:test'
import type { Page } from 'playwright-core'
import { seriousViolations } from './axe'
import { chromiumMissing } from './browser'
import { createAndScan } from './window-link'
import { windowPerSuite } from './window-fixture'

const INSTANCE_PHONE = '15550008801'
const CONTACT = '15550008802'

interface SandboxChannel {
  id: string
  invite: string
  owner: string
  followers: string[]
  posts: Array<{ text: string | null }>
}

describe(
  'channels in the window, against the headless server in sandbox mode',
  { skip: chromiumMissing },
  () => {
    const ui = windowPerSuite()
    let page: Page

    /** Calls the API with the window's own credential, as a script beside the window would. */
    const call = <T>(method: 'GET' | 'POST', path: string, body?: unknown) =>
      ui.ok<T>(path, method === 'GET' ? undefined : (body ?? {}))
    const channels = async () =>
      (await call<{ channels: SandboxChannel[] }>('GET', 'sandbox/channels')).channels

    before(async () => {
      page = ui.page
      await createAndScan(page, { phone: INSTANCE_PHONE })
      await page.locator('.state .badge', { hasText: /^State:\s*Connected$/ }).waitFor()
      await call('POST', 'sandbox/accounts', { phone: CONTACT, name: 'Newsroom' })
    })

    test('the instance makes a channel and posts to it from its page; the network keeps both', async () => {
      const panel = page.getByRole('region', { name: 'Channels' })
      await panel.getByLabel('New channel').fill('Shop news')
      await panel.getByRole('button', { name: 'Create channel' }).click()
      const list = panel.getByRole('list', { name: 'Channels' })
      await list.getByRole('listitem').filter({ hasText: 'Shop news' }).waitFor()
      const [own] = (await channels()).filter((channel) => channel.owner === INSTANCE_PHONE)
      assert.ok(own, 'the sandbox has the channel, owned by the instance’s phone')

      await list.getByText('Posts', { exact: true }).click()
      await panel.getByLabel('New post').fill('Open on Sunday')
      await panel.getByRole('button', { name: 'Post', exact: true }).click()
      await panel
        .getByRole('list', { name: `Posts of ${own.id}` })
        .getByText('Open on Sunday')
        .waitFor()
      const kept = (await channels()).find((channel) => channel.id === own.id)
      assert.deepEqual(
        kept?.posts.map((post) => post.text),
        ['Open on Sunday'],
      )
      assert.deepEqual([], await seriousViolations(page), 'the channels panel passes axe')
    })

    test('a contact makes a channel in the sandbox panel; the instance follows it by invite and reads its post', async () => {
      const instanceUrl = page.url()
      await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Sandbox' }).click()
      await page
        .getByRole('list', { name: 'Sandbox accounts' })
        .getByRole('button', { name: new RegExp(`Newsroom \\+${CONTACT}`) })
        .click()
      const contactChannels = page.getByRole('region', { name: 'Channels' })
      await contactChannels.getByLabel('New channel').fill('Morning paper')
      await contactChannels.getByRole('button', { name: 'Create channel' }).click()
      await contactChannels
        .getByRole('list', { name: "The contact's channels" })
        .getByText('Morning paper')
        .waitFor()
      const paper = (await channels()).find((channel) => channel.owner === CONTACT)
      assert.ok(paper)

      await page.goto(instanceUrl)
      const panel = page.getByRole('region', { name: 'Channels' })
      await panel.getByLabel('Follow a channel').fill(`https://whatsapp.com/channel/${paper.invite}`)
      await panel.getByRole('button', { name: 'Follow' }).click()
      await panel
        .getByRole('listitem')
        .filter({ hasText: 'Morning paper' })
        .filter({ hasText: 'following' })
        .waitFor()
      assert.deepEqual((await channels()).find((channel) => channel.id === paper.id)?.followers, [
        INSTANCE_PHONE,
      ])

      await call('POST', `sandbox/accounts/${CONTACT}/channels/${paper.id}/posts`, { text: 'Rain today' })
      const item = panel.getByRole('listitem').filter({ hasText: 'Morning paper' })
      await item.getByText('Posts', { exact: true }).click()
      await panel
        .getByRole('list', { name: `Posts of ${paper.id}` })
        .getByText('Rain today')
        .waitFor()
    })
  },
)
