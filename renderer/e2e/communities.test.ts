import assert from 'node:assert/strict'
import { before, describe, test } from 'node:test'
import type { Page } from 'playwright-core'
import { chromiumMissing } from './browser'
import { linkInWindow } from './window-link'
import { windowPerSuite } from './window-fixture'

const ANN = '15550042222'

describe(
  'communities in the groups view, in a browser, against the headless server in sandbox mode',
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
    })

    test('a community made in the window exists on the network; a group is linked to it and unlinked from it', async () => {
      // The account made this group (the first participant is its creator), so it may link it.
      const { group_id: groupId } = await sandbox('POST', '/groups', {
        subject: 'Stall holders',
        participants: [instancePhone, ANN],
      })
      const groups = page.getByRole('list', { name: 'Groups' })
      await groups.getByRole('link', { name: 'Stall holders' }).waitFor()

      await page.getByRole('textbox', { name: 'New community' }).fill('Night market')
      await page.getByRole('button', { name: 'Create community' }).click()
      const community = page.getByRole('list', { name: 'Groups of Night market' })
      await community.getByText('announcements').waitFor()

      await page.getByRole('button', { name: 'Link' }).click()
      await community.getByText('Stall holders').waitFor()
      const linked = (await sandbox('GET', `/groups/${groupId}`)).group
      assert.ok(linked.linkedParent, 'the network has the group linked')
      const parent = (await sandbox('GET', `/groups/${linked.linkedParent}`)).group
      assert.equal(parent.subject, 'Night market')
      assert.equal(parent.community, true)
      assert.ok(
        parent.members.some((member: { phone: string }) => member.phone === ANN),
        'the group’s members joined the community',
      )
      await groups.getByText('in a community').waitFor()

      await community.getByRole('button', { name: 'Unlink' }).click()
      await community.getByText('Stall holders').waitFor({ state: 'detached' })
      assert.equal((await sandbox('GET', `/groups/${groupId}`)).group.linkedParent, null)
    })
  },
)
