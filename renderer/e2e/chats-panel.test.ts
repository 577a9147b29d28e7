import assert from 'node:assert/strict'
import { before, describe, test } from 'node:test'
import type { Page, Request } from 'playwright-core'
import { chromiumMissing } from './browser'
import { seriousViolations } from './axe'
import { linkInWindow } from './window-link'
import { windowPerSuite } from './window-fixture'

const ANN = '15550032222'
const BEN = '15550033333'
const CLEO = '15550034444'

describe(
  'the chats panel in a browser, against the headless server in sandbox mode',
  { skip: chromiumMissing },
  () => {
    const ui = windowPerSuite()
    let page: Page
    let instancePhone = ''

    /** Calls the sandbox's control API through the app, with the window's own credential. */
    const sandbox = (path: string, body: unknown) => ui.ok(`sandbox${path}`, body)

    before(async () => {
      page = ui.page
      instancePhone = await linkInWindow(page)
      await sandbox('/accounts', { phone: ANN, name: 'Ann' })
      await sandbox('/accounts', { phone: BEN, name: 'Ben' })
      await sandbox('/accounts', { phone: CLEO, name: 'Cleo' })
    })

    test('a new message refreshes only its own chat: one read of that chat, no read of the whole chats or contacts', async () => {
      const chats = page.getByRole('list', { name: 'Chats' })
      const contacts = page.getByRole('list', { name: 'Contacts' })
      await sandbox(`/accounts/${ANN}/messages`, { to: instancePhone, text: 'Ann writes first' })
      await chats.getByRole('listitem').filter({ hasText: 'Ann writes first' }).waitFor()
      await sandbox(`/accounts/${BEN}/messages`, { to: instancePhone, text: 'Ben writes' })
      await chats.getByRole('listitem').filter({ hasText: 'Ben writes' }).waitFor()
      await contacts.getByRole('link', { name: 'Ben' }).waitFor()
      assert.deepEqual(
        await chats.getByRole('link').allInnerTexts(),
        ['Ben', 'Ann'],
        'chats are named by the contact’s name',
      )
      assert.match(await chats.getByRole('listitem').first().innerText(), new RegExp(`\\+${BEN}`))

      // From here on, every list read the window makes is recorded.
      const reads: Array<{ operation: string; params: Record<string, unknown> }> = []
      const record = (request: Request) => {
        const operation = /\/api\/v1\/(chats|contacts)$/.exec(new URL(request.url()).pathname)?.[1]
        if (operation) reads.push({ operation, params: request.postDataJSON() as Record<string, unknown> })
      }
      page.on('request', record)
      await sandbox(`/accounts/${ANN}/messages`, { to: instancePhone, text: 'Ann again' })
      const ann = chats.getByRole('listitem').filter({ hasText: 'Ann again' })
      await ann.waitFor()
      page.off('request', record)

      assert.deepEqual(await chats.getByRole('link').allInnerTexts(), ['Ann', 'Ben'], 'Ann’s chat moved up')
      assert.match(await ann.innerText(), /2 unread/)
      assert.deepEqual(await contacts.getByRole('link').allInnerTexts(), ['Ann', 'Ben'])
      const instanceId = reads[0]?.params.instance_id
      assert.deepEqual(reads, [
        { operation: 'chats', params: { instance_id: instanceId, number: `${ANN}@s.whatsapp.net` } },
      ])
    })

    test('a group chat is named by the group’s subject, not its id', async () => {
      const { group_id: groupId } = await ui.ok<{ group_id: string }>('sandbox/groups', {
        subject: 'Morning crew',
        participants: [ANN, instancePhone],
      })
      await sandbox(`/accounts/${ANN}/messages`, { to: groupId, text: 'Crew, good morning' })
      const chats = page.getByRole('list', { name: 'Chats' })
      const chat = chats.getByRole('listitem').filter({ hasText: 'Crew, good morning' })
      await chat.getByRole('link', { name: 'Morning crew' }).waitFor()
      assert.equal(await chats.getByText(groupId).count(), 0, 'the raw group id is not shown')
    })

    test('a chat is archived and pinned from its row: the phone shows it, the row shows the flags, axe finds nothing', async () => {
      const chats = page.getByRole('list', { name: 'Chats' })
      await sandbox(`/accounts/${ANN}/messages`, { to: instancePhone, text: 'Ann to organise' })
      const ann = chats.getByRole('listitem').filter({ hasText: 'Ann to organise' })
      const actions = ann.getByRole('group', { name: /^Organise / })
      await actions.getByRole('button', { name: 'Archive' }).click()
      await actions.getByRole('button', { name: 'Unarchive' }).waitFor()
      await actions.getByRole('button', { name: 'Pin' }).click()
      await ann.getByText('Pinned · Archived').waitFor()
      const { chats: onPhone } = await ui.ok<{ chats: Record<string, Record<string, unknown>> }>(
        `sandbox/accounts/${instancePhone}/app-state`,
      )
      assert.deepEqual(onPhone[`${ANN}@s.whatsapp.net`], { archived: true, pinned: true })
      // A mute made on the phone reaches the row by chat.updated.
      await sandbox(`/accounts/${instancePhone}/app-state`, { chat: ANN, muted_until: -1 })
      await ann.getByText('Pinned · Archived · Muted').waitFor()
      await actions.getByRole('button', { name: 'Unmute' }).waitFor()
      assert.deepEqual(await seriousViolations(page), [])
    })

    test('disappearing messages are turned on from a chat’s row: the contact’s phone gets the timer, the row shows it', async () => {
      const chats = page.getByRole('list', { name: 'Chats' })
      await sandbox(`/accounts/${BEN}/messages`, { to: instancePhone, text: 'Ben, briefly' })
      const ben = chats.getByRole('listitem').filter({ hasText: 'Ben, briefly' })
      const actions = ben.getByRole('group', { name: /^Organise / })
      await actions.getByRole('button', { name: 'Disappearing 7 days' }).click()
      await ben.getByText('Disappearing after 7 days').waitFor()
      await actions.getByRole('button', { name: 'Disappearing off' }).waitFor()
      // The timer went out before the app announced it; the phone has it once the network delivered it.
      for (let tries = 0; ; tries++) {
        assert.ok(tries < 300, 'the timer never reached Ben’s phone')
        const { messages } = await ui.ok<{ messages: Array<{ type: string; expiration: number | null }> }>(
          `sandbox/accounts/${BEN}/messages`,
        )
        if (messages.some((m) => m.type === 'disappearing' && m.expiration === 604800)) break
        await new Promise((resolve) => setTimeout(resolve, 100))
      }
      assert.deepEqual(await seriousViolations(page), [])
    })

    test('a chat is cleared, then deleted, from its row after a confirmation: the phone shows each, the row goes', async () => {
      const chats = page.getByRole('list', { name: 'Chats' })
      const cleo = `${CLEO}@s.whatsapp.net`
      const onPhone = async () =>
        (
          await ui.ok<{ chats: Record<string, { clearedAt?: number; deletedAt?: number }> }>(
            `sandbox/accounts/${instancePhone}/app-state`,
          )
        ).chats[cleo]
      await sandbox(`/accounts/${CLEO}/messages`, { to: instancePhone, text: 'Cleo to clear' })
      const row = chats.getByRole('listitem').filter({ hasText: 'Cleo to clear' })
      const actions = row.getByRole('group', { name: /^Organise / })
      // Cancelled: nothing is sent.
      await actions.getByRole('button', { name: 'Delete chat' }).click()
      const deleting = page.getByRole('dialog', { name: /^Delete the chat with / })
      await deleting.getByRole('button', { name: 'Cancel' }).click()
      await deleting.waitFor({ state: 'detached' })

      await actions.getByRole('button', { name: 'Clear chat' }).click()
      const clearing = page.getByRole('dialog', { name: /^Clear the chat with / })
      assert.deepEqual(await seriousViolations(page), [])
      await clearing.getByRole('button', { name: 'Clear chat' }).click()
      await row.waitFor({ state: 'detached' })
      const cleared = await onPhone()
      assert.ok(cleared?.clearedAt, JSON.stringify(cleared))
      assert.equal(cleared.deletedAt, undefined, 'the cancelled delete was never sent')

      // A new message brings the chat back; deleting it takes the row again.
      await sandbox(`/accounts/${CLEO}/messages`, { to: instancePhone, text: 'Cleo again' })
      const again = chats.getByRole('listitem').filter({ hasText: 'Cleo again' })
      await again
        .getByRole('group', { name: /^Organise / })
        .getByRole('button', { name: 'Delete chat' })
        .click()
      await page
        .getByRole('dialog', { name: /^Delete the chat with / })
        .getByRole('button', { name: 'Delete chat' })
        .click()
      await again.waitFor({ state: 'detached' })
      assert.ok((await onPhone())?.deletedAt)
    })
  },
)
