import assert from 'node:assert/strict'
import { test } from 'node:test'
import { linkedCoreFixture } from '../testing/linked-core'

const ME = '15550620001'
const ALICE = '15550620002'
const BOB = '15550620003'

const sentBeforeLink: string[] = []

/** The phone receives these before the instance links; its history sync hands them over. */
const linked = linkedCoreFixture(
  ME,
  [
    { phone: ME, name: 'Me' },
    { phone: ALICE, name: 'Alice' },
    { phone: BOB, name: 'Bob' },
  ],
  {},
  async (control) => {
    for (let n = 1; n <= 5; n++)
      sentBeforeLink.push((await control.send(ALICE, { to: ME, text: `Alice ${n}` })).id)
    sentBeforeLink.push((await control.send(BOB, { to: ME, text: 'Bob was here' })).id)
  },
)

/** The stored chats once the history sync was kept (it is stored after the link, asynchronously). */
async function chatsAfterSync(): Promise<any[]> {
  const deadline = Date.now() + 10_000
  for (;;) {
    const { body } = await linked.api('chats')
    const count = body.chats.reduce((sum: number, chat: any) => sum + chat.messages, 0)
    if (count >= sentBeforeLink.length || Date.now() > deadline) return body.chats
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
}

test('right after linking, the chats, their messages and the contacts of the phone’s history sync are there', async () => {
  const chats = await chatsAfterSync()
  const alice = chats.find((chat) => chat.chat === `${ALICE}@s.whatsapp.net`)
  const bob = chats.find((chat) => chat.chat === `${BOB}@s.whatsapp.net`)
  assert.ok(alice && bob, JSON.stringify(chats))
  assert.equal(alice.messages, 5)
  assert.equal(alice.last_message.text, 'Alice 5')
  assert.equal(alice.unread, 5, 'the phone never opened the chat')
  assert.equal(bob.last_message.push_name, 'Bob')
  const { body: contacts } = await linked.api('contacts')
  const names = Object.fromEntries(contacts.contacts.map((c: any) => [c.phone, c.push_name]))
  assert.equal(names[ALICE], 'Alice')
  assert.equal(names[BOB], 'Bob')
  assert.ok(
    !linked.events.seen.some((event) => sentBeforeLink.includes((event.data as any).id)),
    'history is kept, not announced as new messages',
  )
})

test('the history’s messages page newest first, and read ones stop counting as unread', async () => {
  const first = await linked.api('chat_messages', { number: ALICE, limit: 2 })
  assert.deepEqual(
    first.body.messages.map((m: any) => m.text),
    ['Alice 5', 'Alice 4'],
  )
  const second = await linked.api('chat_messages', {
    number: ALICE,
    limit: 2,
    cursor: first.body.next_cursor,
  })
  assert.deepEqual(
    second.body.messages.map((m: any) => m.text),
    ['Alice 3', 'Alice 2'],
  )
  const last = await linked.api('chat_messages', { number: ALICE, limit: 2, cursor: second.body.next_cursor })
  assert.deepEqual(
    last.body.messages.map((m: any) => m.text),
    ['Alice 1'],
  )
  assert.equal(last.body.next_cursor, null)
  const read = await linked.api('mark_read', { number: ALICE })
  assert.equal(read.status, 200, JSON.stringify(read.body))
  const chats = (await linked.api('chats')).body.chats
  assert.equal(chats.find((chat: any) => chat.chat === `${ALICE}@s.whatsapp.net`).unread, 0)
})

test('messages arriving after the link add to what the history gave', async () => {
  const { id } = await linked.control.send(ALICE, { to: ME, text: 'Now live' })
  await linked.events.waitFor(
    (event) => event.event === 'message.received' && event.data.id === id,
    'live message',
  )
  const { body } = await linked.api('chat_messages', { number: ALICE, limit: 1 })
  assert.equal(body.messages[0].text, 'Now live')
  const alice = (await linked.api('chats')).body.chats.find(
    (chat: any) => chat.chat === `${ALICE}@s.whatsapp.net`,
  )
  assert.equal(alice.messages, 6)
})
