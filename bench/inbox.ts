// The window's Chats screen at scale: an instance with 2,000 chats, one of them holding 100,000 messages. How
// fast the screen shows its chat list, how fast the big chat opens at its newest message, and whether
// scrolling the list and scrolling back through the chat (its older pages loading on the way) makes long
// frames. Measured in Debian's Chromium (playwright-core) against the compiled headless server, beside the
// event log's figure. `npm run bench:inbox`; knobs: BENCH_INBOX_CHATS (2000), BENCH_INBOX_MESSAGES (100000).
import type { Page } from 'playwright-core'
import { SAMPLE_MESSAGE } from '../electron/core/contract/event-catalogue'
import type { LinkdeskMessage } from '../electron/core/contract/message'
import { openDatabase } from '../electron/core/store/lmdb/database'
import { LmdbMessageStore } from '../electron/core/store/lmdb/messages'
import { launchBrowser } from '../renderer/e2e/browser'
import { ensureRendererBuilt } from '../renderer/e2e/renderer-build'
import { newDataDir, startApp } from './harness/app'
import { isEntry, metOrMissed, runMain, type Figure } from './harness/figure'
import { percentile, spread } from './harness/stats'
import { formatSpread, markdownTable, verdict } from './harness/table'

const CHATS = Number(process.env.BENCH_INBOX_CHATS ?? 2_000)
const MESSAGES = Number(process.env.BENCH_INBOX_MESSAGES ?? 100_000)
const LONG_FRAME_MS = 50
const OPEN_TARGET_MS = 300
const START = 1_795_000_000

const chatOf = (n: number) => `1555${String(n).padStart(7, '0')}@s.whatsapp.net`
/** The big chat: the newest of all, so it is the list's first row. */
const BIG = chatOf(0)

function message(id: string, chat: string, at: number, text: string): LinkdeskMessage {
  return {
    ...SAMPLE_MESSAGE,
    id,
    chat,
    sender: chat,
    sender_phone: chat.split('@')[0] ?? null,
    push_name: `Contact ${chat.slice(4, 11)}`,
    text,
    mentions: [],
    timestamp: String(at),
  }
}

/** Writes the chats and the big chat's messages into the instance's store, as the app would have kept them. */
async function seed(dataDir: string, instanceId: string): Promise<number> {
  const started = performance.now()
  const db = openDatabase(dataDir)
  const store = new LmdbMessageStore(db, dataDir)
  for (let n = 1; n < CHATS; n++)
    void store.addIfNew(instanceId, {
      direction: 'in',
      message: message(
        `3EB1${n.toString(16).padStart(16, '0')}`,
        chatOf(n),
        START + n,
        `hello from chat ${n}`,
      ),
    })
  for (let n = 0; n < MESSAGES; n++) {
    void store.addIfNew(instanceId, {
      direction: n % 3 === 0 ? 'out' : 'in',
      message: {
        ...message(
          `3EB0${n.toString(16).padStart(16, '0')}`,
          BIG,
          START + CHATS + n,
          `message ${n} of the long chat`,
        ),
        from_me: n % 3 === 0,
      },
    })
    if (n % 5_000 === 4_999) await new Promise((resolve) => setTimeout(resolve, 50))
  }
  await new Promise((resolve) => setTimeout(resolve, 1_000))
  await db.flushed
  await db.close()
  return (performance.now() - started) / 1000
}

/** Opens the Chats screen from another screen; answers ms from the click to the first chat row shown. */
async function openChats(page: Page): Promise<number> {
  const nav = page.getByRole('navigation', { name: 'Main' })
  await nav.getByRole('link', { name: 'Instances', exact: true }).click()
  await page.getByRole('heading', { level: 1, name: 'Instances' }).waitFor()
  const started = performance.now()
  await nav.getByRole('link', { name: 'Chats', exact: true }).click()
  await page.getByRole('listbox', { name: 'Chats' }).getByRole('option').first().waitFor()
  return performance.now() - started
}

/** Opens the big chat from its row; answers ms from the click to its newest message shown. */
async function openBigChat(page: Page): Promise<number> {
  const row = page.getByRole('listbox', { name: 'Chats' }).getByRole('option').first()
  const newest = (await row.locator('.chat-preview').innerText()).replace(/^You: /, '')
  const started = performance.now()
  await row.click()
  await page
    .getByRole('list', { name: /^Messages with / })
    .getByRole('listitem')
    .filter({ hasText: newest })
    .waitFor()
  return performance.now() - started
}

/** Scrolls an element by `step` px a frame for `frames` frames, recording each frame's duration in the page. */
function scrollFrames(page: Page, selector: string, step: number, frames: number): Promise<number[]> {
  return page.evaluate(
    async ({ selector, step, frames }) => {
      const element = document.querySelector(selector) as HTMLElement
      const times: number[] = []
      let last = performance.now()
      for (let frame = 0; frame < frames; frame++) {
        element.scrollTop += step
        await new Promise((resolve) => requestAnimationFrame(resolve))
        const now = performance.now()
        times.push(now - last)
        last = now
      }
      return times
    },
    { selector, step, frames },
  )
}

export const inboxFigure: Figure = async ({ sandbox, rounds, target }) => {
  await ensureRendererBuilt()
  const dataDir = newDataDir()
  // The instance is made by the app (its registry), then its store is filled with the app stopped.
  const first = await startApp(sandbox.controlUrl, dataDir)
  const { instance_id: instanceId } = await first.call<{ instance_id: string }>('create_instance', {
    name: 'Bench inbox',
  })
  await first.stop()
  const seedSeconds = await seed(dataDir, instanceId)
  const app = await startApp(sandbox.controlUrl, dataDir)
  const browser = await launchBrowser()
  try {
    const { token: admin } = await app.call<{ token: string }>('admin/tokens/create', {
      label: 'bench window',
      reach: 'all',
      scopes: ['read', 'send', 'manage', 'admin'],
    })
    const login = await browser.context.request.post(`${app.apiBase}/admin/login`, { data: { token: admin } })
    if (!login.ok()) throw new Error(`admin/login answered ${login.status()}: ${await login.text()}`)
    const page = await browser.context.newPage()
    page.on('pageerror', (error) => process.stderr.write(`inbox: page error: ${error.message}\n`))
    const origin = new URL(app.apiBase).origin
    await page.goto(`${origin}/#/chats/${instanceId}`)
    await page.getByRole('listbox', { name: 'Chats' }).getByRole('option').first().waitFor()
    const listOpens: number[] = []
    for (let round = 0; round < Math.max(3, rounds); round++) listOpens.push(await openChats(page))

    const chatOpens: number[] = []
    for (let round = 0; round < Math.max(3, rounds); round++) {
      await page.goto(`${origin}/#/chats/${instanceId}`)
      await page.getByRole('listbox', { name: 'Chats' }).getByRole('option').first().waitFor()
      chatOpens.push(await openBigChat(page))
    }
    // Back through the chat: each frame scrolls up; older pages load as the top comes near.
    const threadFrames = await scrollFrames(page, '.thread-messages', -400, 600)
    const loaded = await page
      .getByRole('list', { name: /^Messages with / })
      .getByRole('listitem')
      .count()
    // Last: the list scrolled to its end no longer shows the long chat's row first.
    const listFrames = await scrollFrames(page, '[role="listbox"][aria-label="Chats"]', 320, 400)

    const listMedian = spread(listOpens).median
    const chatMedian = spread(chatOpens).median
    const long = (frames: number[]) => frames.filter((ms) => ms > LONG_FRAME_MS).length
    const frames = [...listFrames, ...threadFrames]
    target({
      figure: `the Chats screen, ${CHATS.toLocaleString('en')} chats: open a ${MESSAGES.toLocaleString('en')}-message chat`,
      app: `${chatMedian.toFixed(0)} ms (${Math.min(...chatOpens).toFixed(0)}–${Math.max(...chatOpens).toFixed(0)})`,
      beside: `the chat list shown in ${listMedian.toFixed(0)} ms`,
      target: `≤ ${OPEN_TARGET_MS} ms: ${metOrMissed(chatMedian <= OPEN_TARGET_MS)}`,
    })
    target({
      figure: 'scroll the chat list, then back through the long chat (older pages loading)',
      app: `p99 ${percentile(frames, 99).toFixed(1)} ms, max ${Math.max(...frames).toFixed(1)} ms`,
      beside: `${loaded.toLocaleString('en')} messages loaded by the scroll`,
      target: `no frame over ${LONG_FRAME_MS} ms: ${metOrMissed(long(frames) === 0)}`,
    })
    const frameRow = (label: string, shown: number[]) => [
      label,
      `${shown.length} frames: p50 ${percentile(shown, 50).toFixed(1)} ms, p99 ${percentile(shown, 99).toFixed(1)} ms, ` +
        `max ${Math.max(...shown).toFixed(1)} ms; ${long(shown)} over ${LONG_FRAME_MS} ms`,
    ]
    return [
      `## Chats in the window: ${CHATS.toLocaleString('en')} chats, one of ${MESSAGES.toLocaleString('en')} messages`,
      '',
      markdownTable(
        ['what', 'measured'],
        [
          [
            'open the Chats screen from another screen → first chat row',
            `${formatSpread(spread(listOpens))} ms`,
          ],
          [
            'open the long chat from its row → its newest message shown',
            `${formatSpread(spread(chatOpens))} ms`,
          ],
          frameRow(`scroll the ${CHATS.toLocaleString('en')}-chat list, 320 px a frame`, listFrames),
          frameRow(
            `scroll back through the long chat, 400 px a frame (${loaded} messages loaded)`,
            threadFrames,
          ),
        ],
      ),
      '',
      `- a chat opens in ≤ ${OPEN_TARGET_MS} ms: ${verdict(chatMedian <= OPEN_TARGET_MS, `${chatMedian.toFixed(0)} ms (median)`)}.`,
      `- scrolls without long frames: ${verdict(long(frames) === 0, `${long(frames)} frames over ${LONG_FRAME_MS} ms`)}.`,
      '',
      `The store was written through the embedded store (${seedSeconds.toFixed(1)} s), then the compiled server ` +
        `started on it. Chromium ${browser.context.browser()?.version() ?? ''} headless (Debian), 1280×800; the ` +
        'list reads every chat (500 a page) and renders the rows in view; the thread reads 50 messages a page ' +
        'through chat_messages as the scroll nears its top and keeps every message it loaded in the page.',
    ].join('\n')
  } finally {
    await browser.close()
    await app.stop()
  }
}

if (isEntry(import.meta.url)) runMain('inbox', inboxFigure)
