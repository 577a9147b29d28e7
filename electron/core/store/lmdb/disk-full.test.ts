import assert from 'node:assert/strict'
import { test } from 'node:test'
import { SAMPLE_MESSAGE } from '../../contract/event-catalogue'
import type { LinkdeskMessage } from '../../contract/message'
import { smallDisk, smallDiskMissing } from '../../testing/small-disk'
import { openDatabase } from './database'
import { LmdbMessageStore } from './messages'

const CHAT = '15551234567@s.whatsapp.net'

function message(id: string, second: number): LinkdeskMessage {
  return {
    ...SAMPLE_MESSAGE,
    id,
    chat: CHAT,
    sender: CHAT,
    sender_phone: '15551234567',
    sender_lid: null,
    push_name: null,
    text: `message ${id}`,
    mentions: [],
    timestamp: String(1795248324 + second),
  }
}

/** A message whose stored content takes a good part of a small disk. */
const entry = (n: number) => ({
  direction: 'in' as const,
  message: message(`M${n}`, n),
  content: new Uint8Array(40_000).fill(n % 251),
})

test(
  'a full disk fails the write that met it (nothing answered as stored, nothing lost) and the store takes writes again once there is room',
  { skip: smallDiskMissing(), timeout: 120_000 },
  async (t) => {
    const disk = smallDisk(2)
    t.after(() => disk.dispose())
    const db = openDatabase(disk.path)
    const store = new LmdbMessageStore(db, disk.path)

    const kept: number[] = []
    let refused: { n: number; error: Error } | undefined
    for (let n = 0; n < 500 && !refused; n++) {
      try {
        assert.equal(await store.addIfNew('inst', entry(n)), true)
        kept.push(n)
      } catch (error) {
        refused = { n, error: error as Error }
      }
    }
    assert.ok(refused, 'the disk filled up')
    assert.match(refused.error.message, /could not commit/)
    assert.equal(await store.get('inst', `M${refused.n}`), undefined, 'the refused message is not read back')
    const page = await store.chatPage('inst', CHAT, 1000)
    assert.deepEqual(
      page.map(({ message: { id } }) => id),
      kept.map((n) => `M${n}`).reverse(),
      "the chat's page holds what was stored, not the refused message",
    )
    assert.equal((await store.chat('inst', CHAT))?.messages, kept.length, "the chat's count likewise")
    await assert.rejects(
      store.markRead(
        'inst',
        kept.map((n) => `M${n}`),
      ),
      /could not commit/,
    )
    assert.equal((await store.chat('inst', CHAT))?.unread, kept.length, 'a refused read changes nothing')

    disk.grow(16)
    assert.equal(
      await store.addIfNew('inst', entry(refused.n)),
      true,
      'the same message stored on its next delivery',
    )
    assert.equal(await store.addIfNew('inst', entry(refused.n + 1)), true)
    await store.markRead('inst', [`M${refused.n}`])
    await db.close()

    const reopened = new LmdbMessageStore(openDatabase(disk.path), disk.path)
    const all = [...kept, refused.n, refused.n + 1]
    for (const n of all) {
      const stored = await reopened.get('inst', `M${n}`)
      assert.equal(stored?.message.text, `message M${n}`, `M${n} kept`)
      assert.equal(stored?.content?.length, 40_000)
    }
    const chat = await reopened.chat('inst', CHAT)
    assert.equal(chat?.messages, all.length)
    assert.equal(chat?.unread, all.length - 1)
    assert.equal(chat?.last.message.id, `M${refused.n + 1}`)
  },
)
