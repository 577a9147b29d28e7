import assert from 'node:assert/strict'
import { before, describe, test } from 'node:test'
import type { Page } from 'playwright-core'
import type { SandboxInboxEntryView } from '../../electron/core/shared-types'
import { seriousViolations } from './axe'
import { chromiumMissing } from './browser'
import { solidPng } from '../../packages/sandbox/src/testing/solid-png'
import { windowPerSuite } from './window-fixture'
import { connectedNumber, scanWithSandboxPhone } from './window-link'

const ANN = '15550041111'
const BEN = '15550042222'
const NOBODY = '15550049999'

interface LoggedEvent {
  event: string
  instance_id: string
  data: Record<string, unknown>
}

/** Polls `read` until it gives a value (the other side acts on its own schedule); fails naming `what`. */
async function until<T>(what: string, read: () => Promise<T | undefined>): Promise<T> {
  for (let tries = 0; tries < 300; tries++) {
    const found = await read()
    if (found !== undefined) return found
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
  throw new Error(`never saw ${what}`)
}

async function openScreen(page: Page, name: string): Promise<void> {
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name, exact: true }).click()
  await page.getByRole('heading', { level: 1 }).filter({ hasText: name }).waitFor()
}

/** Axe finds nothing serious on what the page shows now, light and dark. */
async function accessible(page: Page, where: string): Promise<void> {
  for (const theme of ['light', 'dark'] as const) {
    await page.emulateMedia({ colorScheme: theme })
    assert.deepEqual(await seriousViolations(page), [], `${where} in ${theme} mode`)
  }
  await page.emulateMedia({ colorScheme: 'light' })
}

describe(
  'acting on messages, chats and calls from the window, and as a sandbox contact, seen on the other side',
  { skip: chromiumMissing },
  () => {
    const ui = windowPerSuite()
    let page: Page
    let instanceId = ''
    let instancePhone = ''

    const api = ui.ok
    const inboxOf = async (phone: string) =>
      (await api<{ messages: SandboxInboxEntryView[] }>(`sandbox/accounts/${phone}/messages`)).messages
    const arrivedAt = (phone: string, what: string, match: (entry: SandboxInboxEntryView) => boolean) =>
      until(`${what} at +${phone}`, async () => (await inboxOf(phone)).find(match))
    /** The app's event of that name whose data matches, once it is logged. */
    const eventInApp = (name: string, match: (data: Record<string, unknown>) => boolean) =>
      until(`${name} in the app`, async () => {
        const { events } = await api<{ events: LoggedEvent[] }>('events', {
          instance_id: instanceId,
          event: name,
          limit: 50,
        })
        return events.find((event) => match(event.data))
      })
    const eventRow = (text: string, name: string) =>
      page
        .getByRole('listbox', { name: 'Events' })
        .getByRole('option')
        .filter({ hasText: text })
        .filter({ hasText: name })
        .first()

    before(async () => {
      page = ui.page
      instanceId = (await api<{ instance_id: string }>('create_instance', {})).instance_id
      await page.goto(`${new URL(ui.server.loginUrl).origin}/#/instances/${instanceId}/link`)
      await scanWithSandboxPhone(page)
      instancePhone = await connectedNumber(page)
      await api('sandbox/accounts', { phone: ANN, name: 'Ann', about: 'Ann’s about text' })
      await api(`sandbox/accounts/${ANN}/picture`, {
        media_base64: solidPng(64, 64, [200, 40, 40]).toString('base64'),
      })
      await api('sandbox/accounts', { phone: BEN, name: 'Ben' })
      // Reads come only when a test asks for them.
      await api(`sandbox/accounts/${ANN}/behaviour`, { reads: 'never' })
      await api(`sandbox/accounts/${BEN}/behaviour`, { reads: 'never' })
    })

    test('from a message in the event log: mark read, react, forward, reply, then edit and delete the reply — each reaches the contact', async () => {
      const { id: annId } = await api<{ id: string }>(`sandbox/accounts/${ANN}/messages`, {
        to: instancePhone,
        text: 'Hello from Ann',
      })
      await openScreen(page, 'Events')
      await eventRow('Hello from Ann', 'message.received').click()
      const actions = page.getByRole('region', { name: 'Act on this message' })
      await actions.waitFor()

      await actions.getByRole('button', { name: 'Mark read' }).click()
      await until('Ann’s message read', async () =>
        (await api<{ ids: string[] }>(`sandbox/accounts/${ANN}/reads`)).ids.includes(annId)
          ? true
          : undefined,
      )

      await actions.getByRole('button', { name: 'Star', exact: true }).click()
      await until('Ann’s message starred on the phone', async () => {
        const { starred } = await api<{ starred: Record<string, string[]> }>(
          `sandbox/accounts/${instancePhone}/app-state`,
        )
        return Object.values(starred).flat().includes(annId) ? true : undefined
      })

      await actions.getByLabel('Emoji (empty takes the reaction back)').fill('🎉')
      await actions.getByRole('button', { name: 'React' }).click()
      const reaction = await arrivedAt(ANN, 'the reaction', (e) => e.type === 'reaction')
      assert.equal(reaction.targetId, annId)
      assert.equal(reaction.text, '🎉')

      await actions.getByLabel('Forward to (number or group id)').fill(BEN)
      await actions.getByRole('button', { name: 'Forward' }).click()
      await arrivedAt(BEN, 'the forwarded message', (e) => e.text === 'Hello from Ann')
      await accessible(page, 'the actions on a received message')

      await page.getByRole('link', { name: 'Reply in the composer' }).click()
      await page.getByRole('heading', { level: 1, name: 'Composer' }).waitFor()
      await page.getByLabel('Message').fill('Reply from the window')
      await page.getByRole('button', { name: 'Send', exact: true }).click()
      const reply = await arrivedAt(ANN, 'the reply', (e) => e.text === 'Reply from the window')
      assert.equal(reply.quotedId, annId, 'Ann sees it quoting her message')
      // Its last event (Ann's phone reads nothing) is in the log: the list does not move under the click.
      await eventInApp('message.status', (data) => data.id === reply.id && data.status === 'delivered')

      await openScreen(page, 'Events')
      await eventRow('Reply from the window', 'message.sent').click()
      await actions.getByLabel('New text').fill('Reply, edited')
      await actions.getByRole('button', { name: 'Edit' }).click()
      const edit = await arrivedAt(ANN, 'the edit', (e) => e.type === 'edit')
      assert.equal(edit.targetId, reply.id)
      assert.equal(edit.text, 'Reply, edited')

      await actions.getByRole('button', { name: 'Delete for everyone' }).click()
      const dialog = page.getByRole('dialog', { name: 'Delete this message for everyone?' })
      await accessible(page, 'the delete dialog')
      await dialog.getByRole('button', { name: 'Delete for everyone' }).click()
      const revoke = await arrivedAt(ANN, 'the deletion', (e) => e.type === 'revoke')
      assert.equal(revoke.targetId, reply.id)
    })

    test('in a chat: a poll, typing and paused, the chat marked read, a number check and a contact’s profile', async () => {
      await page.goto(`${new URL(ui.server.loginUrl).origin}/#/instances/${instanceId}`)
      const tools = page.getByRole('region', { name: 'In a chat' })
      await tools.waitFor()

      const poll = tools.getByRole('form', { name: 'Send a poll' })
      await poll.getByLabel('To (number or group id)').fill(ANN)
      await poll.getByLabel('Question').fill('Lunch where?')
      await poll.getByLabel('Options, one a line (2 to 12)').fill('Pizza\nSushi')
      await poll.getByRole('button', { name: 'Send poll' }).click()
      const received = await arrivedAt(ANN, 'the poll', (e) => e.type === 'poll')
      assert.equal(received.poll?.question, 'Lunch where?')
      assert.deepEqual(received.poll?.options, ['Pizza', 'Sushi'])

      const signals = tools.getByRole('form', { name: 'Chat signals' })
      await signals.getByLabel('Chat (number or group id)').fill(BEN)
      const typed = async (state: string) =>
        until(`${state} seen by Ben`, async () => {
          const { chat_states } = await api<{ chat_states: Array<{ from: string; state: string }> }>(
            `sandbox/accounts/${BEN}/presence`,
          )
          return chat_states.find((seen) => seen.from.startsWith(instancePhone) && seen.state === state)
        })
      await signals.getByRole('button', { name: 'Show typing' }).click()
      await typed('composing')
      await signals.getByRole('button', { name: 'Stop typing' }).click()
      await typed('paused')

      const { id: benId } = await api<{ id: string }>(`sandbox/accounts/${BEN}/messages`, {
        to: instancePhone,
        text: 'Ben waits for blue ticks',
      })
      await eventInApp('message.received', (data) => data.id === benId)
      await signals.getByRole('button', { name: 'Mark chat read' }).click()
      await until('Ben’s message read', async () =>
        (await api<{ ids: string[] }>(`sandbox/accounts/${BEN}/reads`)).ids.includes(benId)
          ? true
          : undefined,
      )

      const check = tools.getByRole('form', { name: 'Check numbers' })
      await check.getByLabel('Numbers (separated by spaces or commas)').fill(`${ANN}, ${NOBODY}`)
      await check.getByRole('button', { name: 'Check' }).click()
      const checked = check.getByRole('list', { name: 'Checked numbers' })
      await checked.waitFor()
      const { accounts } = await api<{ accounts: Array<{ phone: string }> }>('sandbox/accounts')
      assert.ok(accounts.some((account) => account.phone === ANN))
      assert.ok(!accounts.some((account) => account.phone === NOBODY))
      assert.deepEqual(await checked.getByRole('listitem').allInnerTexts(), [
        `+${ANN}: on WhatsApp (${ANN}@s.whatsapp.net)`,
        `+${NOBODY}: not on WhatsApp`,
      ])

      const profile = tools.getByRole('form', { name: 'Contact profile' })
      await profile.getByLabel('Number or group id').fill(ANN)
      await profile.getByRole('button', { name: 'Show profile' }).click()
      const picture = profile.getByRole('img', { name: `Profile picture of ${ANN}@s.whatsapp.net` })
      await picture.waitFor()
      assert.match(await profile.getByRole('definition').nth(1).innerText(), /Ann’s about text/)
      const width = await picture.evaluate((img) => (img as HTMLImageElement).naturalWidth)
      assert.equal(width, 64, 'the picture Ann set, as the sandbox serves it')
      await accessible(page, 'the chat tools')
    })

    test('the sandbox panel acts as Ann: react, edit, revoke, vote, type, read and call arrive as events; the window rejects the call', async () => {
      const { id: annId } = await api<{ id: string }>(`sandbox/accounts/${ANN}/messages`, {
        to: instancePhone,
        text: 'Ann will change this',
      })
      const sent = await api<{ message: { key: { id: string } } }>('send_message', {
        instance_id: instanceId,
        number: ANN,
        type: 'text',
        message: 'The instance writes to Ann',
      })
      const instanceMessage = sent.message.key.id
      await arrivedAt(ANN, 'the instance’s message', (e) => e.id === instanceMessage)
      const poll = (await inboxOf(ANN)).find((e) => e.type === 'poll')
      assert.ok(poll)

      await openScreen(page, 'Sandbox')
      await page.getByRole('list', { name: 'Sandbox accounts' }).getByRole('button', { name: /^Ann/ }).click()
      const panel = page.getByRole('region', { name: 'Act as this contact' })
      await panel.waitFor()
      assert.equal(await panel.getByLabel('Chat (number or group id)').inputValue(), instancePhone)
      const onMessage = panel.getByRole('form', { name: 'Act on a message' })
      const act = async (action: string, id: string, value?: string) => {
        await onMessage.getByLabel('Action', { exact: true }).selectOption(action)
        await onMessage.getByLabel('Message id', { exact: true }).fill(id)
        if (value !== undefined) await onMessage.locator('#contact-act-value').fill(value)
        await onMessage.getByRole('button').click()
        await panel.getByRole('status').waitFor()
      }
      const mentions = (id: string) => (data: Record<string, unknown>) => JSON.stringify(data).includes(id)

      await act('react', instanceMessage, '❤️')
      await eventInApp('message.reaction', mentions(instanceMessage))
      await act('edit', annId, 'Ann changed it')
      await eventInApp('message.edited', mentions(annId))
      await act('revoke', annId)
      await eventInApp('message.deleted', mentions(annId))
      await act('vote', poll.id, 'Sushi')
      const vote = await eventInApp('poll.vote', mentions(poll.id))
      assert.match(JSON.stringify(vote.data), /Sushi/)
      await act('read', instanceMessage)
      await eventInApp('message.status', (data) => mentions(instanceMessage)(data) && data.status === 'read')
      await panel.getByRole('button', { name: 'Type', exact: true }).click()
      await eventInApp('presence.update', (data) => JSON.stringify(data).includes('typing'))
      await accessible(page, 'the sandbox panel’s contact actions')

      await panel.getByRole('button', { name: 'Call' }).click()
      const call = await eventInApp('call.received', (data) => data.from_phone === ANN)
      await openScreen(page, 'Events')
      await eventRow(ANN, 'call.received').click()
      await page.getByRole('button', { name: 'Reject the call' }).click()
      await until('the call rejected at Ann’s phone', async () => {
        const { calls } = await api<{ calls: Array<{ id: string; status: string }> }>(
          `sandbox/accounts/${ANN}/calls`,
        )
        return calls.find((made) => made.id === call.data.id && made.status === 'rejected')
      })
    })

    test('a pairing code typed on the simulated phone links a new instance from the window', async () => {
      const { instance_id: fresh } = await api<{ instance_id: string }>('create_instance', {})
      await page.goto(`${new URL(ui.server.loginUrl).origin}/#/instances/${fresh}`)
      const form = page.getByRole('form', { name: 'Or link with a pairing code' })
      await form.getByLabel('Phone number of the account').fill('15550043333')
      await form.getByRole('button', { name: 'Get a pairing code' }).click()
      await form
        .getByRole('status')
        .filter({ hasText: /[0-9A-Z]{4}-[0-9A-Z]{4}/ })
        .waitFor()
      await accessible(page, 'the pairing code with the sandbox phone')
      await form.getByRole('button', { name: 'Type it on the sandbox phone' }).click()
      await page.locator('.badge', { hasText: 'Connected' }).waitFor()
      const { instance } = await api<{ instance: { account: { number: string } | null } }>('instance', {
        instance_id: fresh,
      })
      assert.equal(instance.account?.number, '15550043333')
      const { accounts } = await api<{ accounts: Array<{ phone: string; linkedDevices: number[] }> }>(
        'sandbox/accounts',
      )
      assert.equal(accounts.find((account) => account.phone === '15550043333')?.linkedDevices.length, 1)
    })
  },
)
