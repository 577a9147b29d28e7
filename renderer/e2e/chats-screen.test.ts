import assert from 'node:assert/strict'
import { before, describe, test } from 'node:test'
import type { Page } from 'playwright-core'
import type { SandboxInboxEntryView } from '../../electron/core/shared-types'
import { solidPng } from '../../packages/sandbox/src/testing/solid-png'
import { seriousViolations } from './axe'
import { chromiumMissing } from './browser'
import { screenshot } from './screenshots'
import { linkInWindow } from './window-link'
import { windowPerSuite } from './window-fixture'

const ANN = '15550061111'
const BEN = '15550062222'
const CLEO = '15550063333'

/** Polls `read` until it answers something, failing after a generous wait. */
async function until<T>(what: string, read: () => Promise<T | undefined | false>): Promise<T> {
  for (let tries = 0; tries < 600; tries++) {
    const found = await read()
    if (found) return found
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
  throw new Error(`${what}: never happened`)
}

describe(
  'the Chats screen in a browser, against the headless server in sandbox mode',
  { skip: chromiumMissing },
  () => {
    const ui = windowPerSuite()
    let page: Page
    let instancePhone = ''
    const sandbox = <T = any>(path: string, body?: unknown) => ui.ok<T>(`sandbox/${path}`, body)
    const send = (from: string, body: Record<string, unknown>) =>
      sandbox<{ id: string }>(`accounts/${from}/messages`, { to: instancePhone, ...body })
    const inboxOf = async (phone: string) =>
      (await sandbox<{ messages: SandboxInboxEntryView[] }>(`accounts/${phone}/messages`)).messages
    const thread = () => page.getByRole('list', { name: /^Messages with / })
    const bubble = (text: string) => thread().getByRole('listitem').filter({ hasText: text })
    const chatRow = (name: string) =>
      page.getByRole('listbox', { name: 'Chats' }).getByRole('option').filter({ hasText: name })
    const openChats = async () => {
      if ((await page.getByRole('heading', { level: 1, name: 'Chats' }).count()) > 0) return
      await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Chats' }).click()
      await page.getByRole('heading', { level: 1, name: 'Chats' }).waitFor()
    }
    const openChat = async (name: string) => {
      await openChats()
      await chatRow(name).click()
      await page.getByRole('heading', { level: 2, name }).waitFor()
    }

    before(async () => {
      page = ui.page
      instancePhone = await linkInWindow(page)
      for (const [phone, name] of [
        [ANN, 'Ann'],
        [BEN, 'Ben'],
        [CLEO, 'Cleo'],
      ] as const) {
        await sandbox('accounts', { phone, name })
        await sandbox(`accounts/${phone}/behaviour`, { reads: 'never' })
      }
    })

    test('a contact’s texts, image and reply appear in order in the thread, the image rendered; a new one appears without a reload', async () => {
      const first = await send(ANN, { text: 'Ann: first words' })
      await send(ANN, { text: 'Ann: second words' })
      await send(ANN, {
        media_base64: solidPng(48, 32, [30, 120, 200]).toString('base64'),
        mimetype: 'image/png',
        caption: 'Ann: a blue picture',
      })
      await send(ANN, { text: 'Ann: this answers the first', reply_to: first.id })
      await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Chats' }).click()
      await page.getByRole('heading', { level: 1, name: 'Chats' }).waitFor()
      await chatRow('Ann').filter({ hasText: 'Ann: this answers the first' }).waitFor()
      await openChat('Ann')
      await bubble('Ann: this answers the first').waitFor()
      const texts = await thread().getByRole('listitem').allInnerTexts()
      const order = [
        'Ann: first words',
        'Ann: second words',
        'Ann: a blue picture',
        'Ann: this answers the first',
      ].map((text) => texts.findIndex((shown) => shown.includes(text)))
      assert.ok(
        order.every((at, i) => at >= 0 && (i === 0 || at > order[i - 1]!)),
        `in order: ${order.join(', ')}`,
      )
      const image = bubble('Ann: a blue picture').getByRole('img', { name: 'Ann: a blue picture' })
      await image.waitFor()
      await until('the image is drawn', () =>
        image.evaluate((img: HTMLImageElement) => img.complete && img.naturalWidth === 48),
      )
      const reply = bubble('Ann: this answers the first')
      assert.match(
        await reply.locator('blockquote').innerText(),
        /Ann: first words/,
        'the reply shows what it quotes',
      )

      await send(ANN, { text: 'Ann: while you look' })
      await bubble('Ann: while you look').waitFor()
    })

    test('every kind shows as itself: a voice note with its length, a document with name and size, a place, a card, a link preview, view once; the contact’s edit, reaction and deletion on their messages', async () => {
      await send(BEN, {
        media_base64: Buffer.from('not really opus').toString('base64'),
        media_as: 'voice_note',
        seconds: 7,
      })
      await send(BEN, {
        media_base64: Buffer.from('%PDF-1.4 ben').toString('base64'),
        mimetype: 'application/pdf',
        filename: 'ben-invoice.pdf',
      })
      await send(BEN, { location: { latitude: 52.52, longitude: 13.405, name: 'Alexanderplatz' } })
      await send(BEN, { contacts: [{ name: 'Dora Card', phone: '15550069999' }] })
      await send(BEN, {
        text: 'see https://example.com/menu',
        link_preview: { url: 'https://example.com/menu', title: 'The menu', description: 'Lunch today' },
      })
      await send(BEN, {
        media_base64: solidPng(8, 8, [0, 0, 0]).toString('base64'),
        mimetype: 'image/png',
        view_once: true,
      })
      const typo = await send(BEN, { text: 'Ben tpyo' })
      const gone = await send(BEN, { text: 'Ben regrets this' })
      await send(BEN, { edit: { id: typo.id, text: 'Ben typo fixed' } })
      await send(BEN, { revoke: { id: gone.id } })
      await send(BEN, { reaction: { id: typo.id, emoji: '🎉' } })
      await openChat('Ben')
      await bubble('Voice note 0:07').waitFor()
      await thread().getByRole('button', { name: 'Download ben-invoice.pdf (12 bytes)' }).waitFor()
      await bubble('Alexanderplatz').getByRole('link', { name: '52.52, 13.405' }).waitFor()
      await thread()
        .getByRole('list', { name: 'Contact cards' })
        .getByText(/Dora Card \+15550069999/)
        .waitFor()
      await bubble('see https://example.com/menu')
        .getByRole('link', { name: /The menu/ })
        .waitFor()
      await thread().getByText('View once photo: open it on the phone').waitFor()
      const fixed = bubble('Ben typo fixed')
      await fixed.getByText('Edited ·').waitFor()
      await fixed.getByLabel('Reactions: 🎉').waitFor()
      await thread().getByText('This message was deleted').waitFor()
      assert.equal(await bubble('Ben regrets this').count(), 0, 'the deleted text is gone')
    })

    test('a reply typed in the thread reaches the contact’s phone, pending then sent; the contact reads it and the tick turns read; typing is shown to the contact', async () => {
      await openChat('Ann')
      const box = page.getByRole('textbox', { name: 'Message' })
      await box.click()
      await box.pressSequentially('Hello Ann')
      await until('Ann sees typing', async () => {
        const { chat_states } = await sandbox<{ chat_states: Array<{ from: string; state: string }> }>(
          `accounts/${ANN}/presence`,
        )
        return chat_states.some((seen) => seen.from.startsWith(instancePhone) && seen.state === 'composing')
      })
      await box.press('Shift+Enter')
      await box.pressSequentially('from the thread')
      await box.press('Enter')
      assert.equal(await box.inputValue(), '', 'Enter sent it and emptied the box')
      const received = await until('the reply reaches Ann', async () =>
        (await inboxOf(ANN)).find((message) => message.text === 'Hello Ann\nfrom the thread'),
      )
      const mine = bubble('from the thread')
      await mine.getByTitle('Sent').or(mine.getByTitle('Delivered')).first().waitFor()

      await sandbox(`accounts/${ANN}/read`, { ids: [received.id] })
      await mine.getByTitle('Read').waitFor()
    })

    test('a failed send shows its error and a retry', async () => {
      await openChat('Ann')
      // The upload is cut off, as a dropped connection would: the message stays, marked not sent, with Retry.
      await page.route('**/api/v1/uploads', (route) => route.abort())
      await page
        .getByLabel('Attach a file')
        .setInputFiles({ name: 'note.txt', mimeType: 'text/plain', buffer: Buffer.from('a note for Ann') })
      await page.getByRole('button', { name: 'Send' }).click()
      const failed = bubble('[file] note.txt')
      await failed.getByText(/^Not sent:/).waitFor()
      await page.unroute('**/api/v1/uploads')
      await failed.getByRole('button', { name: 'Retry' }).click()
      const document = await until('the document reaches Ann', async () =>
        (await inboxOf(ANN)).find((message) => message.filename === 'note.txt'),
      )
      assert.equal(document.size, 'a note for Ann'.length)
      await bubble('note.txt')
        .getByText(/note\.txt \(14 bytes\)/)
        .waitFor()
    })

    test('from the chosen message: react, edit and delete an own one, each reaching the contact', async () => {
      await openChat('Ann')
      await bubble('Ann: second words').click()
      const toolbar = page.getByRole('region', { name: 'The chosen message' })
      await toolbar.getByRole('button', { name: 'React ❤️' }).click()
      await until('Ann sees the reaction', async () =>
        (await inboxOf(ANN)).some((message) => message.type === 'reaction' && message.text === '❤️'),
      )
      await bubble('Ann: second words').getByLabel('Reactions: ❤️').waitFor()

      await bubble('from the thread').click()
      await toolbar.getByRole('button', { name: 'Edit' }).click()
      await toolbar.getByLabel('New text').fill('Hello Ann, edited')
      await toolbar.getByRole('button', { name: 'Save the edit' }).click()
      await until('Ann sees the edit', async () =>
        (await inboxOf(ANN)).some(
          (message) => message.type === 'edit' && message.text === 'Hello Ann, edited',
        ),
      )
      await bubble('Hello Ann, edited').getByText('Edited ·').waitFor()
    })

    test('search finds a chat by name, by number and by a word of a message', async () => {
      await send(BEN, { text: 'Ben mentions the zeppelin' })
      await send(CLEO, { text: 'Cleo writes about nothing' })
      await chatRow('Ben').waitFor()
      const search = page.getByRole('searchbox', { name: 'Search chats' })
      const names = () =>
        page.getByRole('listbox', { name: 'Chats' }).getByRole('option').locator('.chat-name').allInnerTexts()
      await search.fill('cleo')
      await until('Cleo by name', async () => JSON.stringify(await names()) === '["Cleo"]')
      await search.fill(BEN.slice(-6))
      await until('Ben by number', async () => JSON.stringify(await names()) === '["Ben"]')
      await search.fill('ZEPPELIN')
      await until('Ben by a word', async () => JSON.stringify(await names()) === '["Ben"]')
      await search.fill('')
      await until('every chat again', async () => (await names()).length === 3)
    })

    test('a 250-message chat opens at its newest with part of it rendered, and scrolling back reaches its first message', async () => {
      await openChats()
      for (let n = 1; n <= 250; n++) await send(CLEO, { text: `Cleo counts ${n}` })
      await chatRow('Cleo').filter({ hasText: 'Cleo counts 250' }).waitFor()
      await openChat('Cleo')
      await bubble('Cleo counts 250').waitFor()
      const rendered = await thread().getByRole('listitem').count()
      assert.ok(rendered < 150, `${rendered} rendered: only the newest pages are read`)
      const messages = thread()
      await until('the newest is in view', () =>
        messages.evaluate((list) => list.scrollHeight - list.scrollTop - list.clientHeight < 60),
      )
      await until('scrolling back reaches the first message', async () => {
        await messages.evaluate((list) => (list.scrollTop = 0))
        return (await page.getByText('The first stored message of this chat').count()) === 1
      })
      const texts = await messages.getByRole('listitem').allInnerTexts()
      const at = (n: number) => texts.findIndex((text) => text.startsWith(`Cleo counts ${n}\n`))
      assert.ok(at(1) < at(2) && at(2) < at(250), 'oldest to newest, top to bottom')
    })

    test('keyboard: arrows move through the chat list and the thread', async () => {
      const list = page.getByRole('listbox', { name: 'Chats' })
      await list.focus()
      await page.keyboard.press('Home')
      const first = await list.getByRole('option').first().locator('.chat-name').innerText()
      await page.getByRole('heading', { level: 2, name: first }).waitFor()
      await page.keyboard.press('ArrowDown')
      const second = await list.getByRole('option').nth(1).locator('.chat-name').innerText()
      await page.getByRole('heading', { level: 2, name: second }).waitFor()
      await thread().focus()
      await page.keyboard.press('End')
      await page.getByRole('region', { name: 'The chosen message' }).waitFor()
    })

    test('a notification is raised for a message while the window is not in front, and clicking it opens the chat', async () => {
      await ui.browser.context.grantPermissions(['notifications'], {
        origin: new URL(ui.server.apiBase).origin,
      })
      // The real Notification, remembered as it is made: the test clicks it as the desktop would.
      await page.addInitScript(() => {
        const Real = window.Notification
        const made: Notification[] = []
        ;(window as unknown as { raised: Notification[] }).raised = made
        window.Notification = class extends Real {
          constructor(title: string, options?: NotificationOptions) {
            super(title, options)
            made.push(this)
          }
        } as typeof Notification
      })
      await page.reload()
      await openChat('Ben')
      // Playwright tells every page it has the focus; without that, the page in front has it.
      const focus = await ui.browser.context.newCDPSession(page)
      await focus.send('Emulation.setFocusEmulationEnabled', { enabled: false })
      const raisedCount = () =>
        page.evaluate(() => (window as unknown as { raised: Notification[] }).raised.length)
      const behind = async () => {
        const other = await ui.browser.context.newPage()
        await other.bringToFront()
        await until('the window is behind', () => page.evaluate(() => !document.hasFocus()))
        return other
      }

      const other = await behind()
      await send(ANN, { text: 'Ann rings the bell' })
      const raised = await until('the notification', () =>
        page.evaluate(() =>
          (window as unknown as { raised: Notification[] }).raised
            .map(({ title, body }) => ({ title, body }))
            .at(-1),
        ),
      )
      assert.deepEqual(raised, { title: 'Ann', body: 'Ann rings the bell' })
      await other.close()
      await page.evaluate(() =>
        (window as unknown as { raised: Notification[] }).raised.at(-1)!.dispatchEvent(new Event('click')),
      )
      await page.getByRole('heading', { level: 2, name: 'Ann' }).waitFor()
      await bubble('Ann rings the bell').waitFor()

      // Off for this instance: the window behind again, a message, no notification.
      await page.getByLabel('For this instance').uncheck()
      const before = await raisedCount()
      const again = await behind()
      await send(ANN, { text: 'Ann rings quietly' })
      await bubble('Ann rings quietly').waitFor()
      assert.equal(await raisedCount(), before)
      await again.close()
      await focus.send('Emulation.setFocusEmulationEnabled', { enabled: true })
      await page.getByLabel('For this instance').check()
    })

    test('axe finds nothing on the Chats screen with a thread open, light and dark', async () => {
      await page.bringToFront()
      await openChat('Ann')
      await bubble('Ann: a blue picture').getByRole('img').waitFor()
      for (const theme of ['light', 'dark'] as const) {
        await page.emulateMedia({ colorScheme: theme })
        await bubble('Ann: second words').click()
        assert.deepEqual(await seriousViolations(page), [], `${theme} mode`)
        await screenshot(page, theme === 'light' ? 'chats' : 'chats-dark')
      }
      await page.emulateMedia({ colorScheme: 'light' })
    })
  },
)
