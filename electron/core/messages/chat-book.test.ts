import assert from 'node:assert/strict'
import { test } from 'node:test'
import { linkedCoreFixture } from '../testing/linked-core'

const ME = '15550480001'
const ALICE = '15550480002'
const BOB = '15550480003'
const CAROL = '15550480004'
const DAN = '15550480005'

const linked = linkedCoreFixture(ME, [
  { phone: ALICE, name: 'Alice' },
  { phone: BOB, name: 'Bob' },
  { phone: CAROL, name: 'Carol' },
  { phone: DAN, name: 'Dan' },
])

async function fromContact(phone: string, text: string): Promise<string> {
  const { id } = await linked.control.send(phone, { to: ME, text })
  await linked.events.waitFor((event) => event.event === 'message.received' && event.data.id === id, text)
  return id
}

async function toContact(phone: string, text: string): Promise<string> {
  const sent = await linked.api('send_message', { number: phone, type: 'text', message: text })
  assert.equal(sent.status, 200, JSON.stringify(sent.body))
  return sent.body.message.key.id
}

test('chats list each conversation newest first, with its last message and unread count', async () => {
  await fromContact(ALICE, 'Hi, Alice here')
  await fromContact(ALICE, 'Are you there?')
  await toContact(ALICE, 'Yes!')
  await new Promise((resolve) => setTimeout(resolve, 1100))
  await fromContact(BOB, 'Bob says hi')
  const { body } = await linked.api('chats')
  assert.equal(body.status, 'success')
  const [first, second] = body.chats
  assert.equal(first.chat, `${BOB}@s.whatsapp.net`, 'the newest conversation first')
  assert.equal(first.last_message.text, 'Bob says hi')
  assert.equal(first.unread, 1)
  assert.equal(second.chat, `${ALICE}@s.whatsapp.net`)
  assert.equal(second.last_message.text, 'Yes!')
  assert.equal(second.unread, 2)
  assert.equal(second.messages, 3)

  const read = await linked.api('mark_read', { number: ALICE })
  assert.equal(read.status, 200)
  const after = (await linked.api('chats')).body.chats
  assert.equal(after.find((chat: { chat: string }) => chat.chat === `${ALICE}@s.whatsapp.net`).unread, 0)
})

test('a chat’s messages come newest first, a page at a time, to the last page', async () => {
  for (let n = 1; n <= 5; n++) await fromContact(BOB, `count ${n}`)
  const texts: string[] = []
  let cursor: string | undefined
  let pages = 0
  do {
    const { status, body } = await linked.api('chat_messages', {
      number: BOB,
      limit: 2,
      ...(cursor ? { cursor } : {}),
    })
    assert.equal(status, 200, JSON.stringify(body))
    assert.ok(body.messages.length <= 2)
    texts.push(...body.messages.map((message: { text: string }) => message.text))
    cursor = body.next_cursor ?? undefined
    pages++
  } while (cursor)
  assert.deepEqual(texts, ['count 5', 'count 4', 'count 3', 'count 2', 'count 1', 'Bob says hi'])
  assert.equal(pages, 3)
  const bad = await linked.api('chat_messages', { number: BOB, cursor: 'not-a-cursor' })
  assert.equal(bad.status, 400)
  assert.equal(bad.body.code, 'invalid_parameter')
  const tooMany = await linked.api('chat_messages', { number: BOB, limit: 500 })
  assert.equal(tooMany.status, 400)
})

test('contacts are the people who wrote, with the names they gave themselves', async () => {
  const { body } = await linked.api('contacts')
  const byPhone = Object.fromEntries(
    body.contacts.map((contact: { phone: string; push_name: string }) => [contact.phone, contact.push_name]),
  )
  assert.deepEqual(byPhone, { [ALICE]: 'Alice', [BOB]: 'Bob' })
})

/** Every page of a list operation, following next_cursor; the pages as they came. */
async function allPages(name: string, key: string, params: Record<string, unknown>): Promise<unknown[][]> {
  const pages: unknown[][] = []
  let cursor: string | undefined
  do {
    const { status, body } = await linked.api(name, { ...params, ...(cursor ? { cursor } : {}) })
    assert.equal(status, 200, JSON.stringify(body))
    pages.push(body[key])
    cursor = body.next_cursor ?? undefined
  } while (cursor)
  return pages
}

test('chats and contacts come a page at a time: each chat once, newest first, across the pages', async () => {
  await fromContact(CAROL, 'Carol here')
  await fromContact(DAN, 'Dan here')
  await toContact(ALICE, 'Alice, one more')
  const whole = (await linked.api('chats')).body
  assert.equal(whole.next_cursor, null)
  const order = whole.chats.map((chat: { chat: string }) => chat.chat)
  assert.deepEqual(order.slice(0, 3), [
    `${ALICE}@s.whatsapp.net`,
    `${DAN}@s.whatsapp.net`,
    `${CAROL}@s.whatsapp.net`,
  ])
  assert.equal(order.length, 4)

  const pages = await allPages('chats', 'chats', { limit: 1 })
  assert.deepEqual(
    pages.map((page) => page.length),
    [1, 1, 1, 1],
  )
  assert.deepEqual(pages.flat(), whole.chats, 'the pages together are the whole list, each chat once')
  const contactPages = await allPages('contacts', 'contacts', { limit: 3 })
  assert.deepEqual(
    contactPages.map((page) => page.length),
    [3, 1],
  )
  assert.deepEqual(contactPages.flat(), (await linked.api('contacts')).body.contacts)

  const one = await linked.api('chats', { number: CAROL })
  assert.deepEqual(one.body, { status: 'success', chats: [whole.chats[2]], next_cursor: null })
  const none = await linked.api('chats', { number: '15550489999' })
  assert.deepEqual(none.body.chats, [])
  const mixed = await linked.api('chats', { number: CAROL, cursor: whole.next_cursor ?? 'x' })
  assert.equal(mixed.status, 400)
  assert.equal(mixed.body.code, 'invalid_parameter')
  const bad = await linked.api('contacts', { cursor: 'not-a-cursor' })
  assert.equal(bad.status, 400)
  assert.equal(bad.body.details.parameter, 'cursor')
})

test('a search finds the chats by a word of their messages; a page of a chat carries the ticks of its own messages', async () => {
  await fromContact(CAROL, 'The parcel left the depot')
  await fromContact(DAN, 'no news here')
  const sent = await toContact(CAROL, 'Thanks for the PARCEL news')
  const found = await linked.api('chats', { search: 'parcel' })
  assert.equal(found.status, 200, JSON.stringify(found.body))
  assert.deepEqual(
    found.body.chats.map((chat: { chat: string }) => chat.chat),
    [`${CAROL}@s.whatsapp.net`],
  )
  assert.equal(found.body.next_cursor, null)
  const both = await linked.api('chats', { search: 'NEWS' })
  assert.deepEqual(
    both.body.chats.map((chat: { chat: string }) => chat.chat),
    [`${CAROL}@s.whatsapp.net`, `${DAN}@s.whatsapp.net`],
    'newest first',
  )
  const mixed = await linked.api('chats', { search: 'parcel', limit: 5 })
  assert.equal(mixed.status, 400)
  assert.equal(mixed.body.details.parameter, 'limit')

  // The contact's phone reads the reply: its page shows it read.
  await linked.control.read(CAROL, [sent])
  for (let tries = 0; ; tries++) {
    assert.ok(tries < 300, 'the read receipt never reached the page')
    const page = await linked.api('chat_messages', { number: CAROL })
    assert.equal(page.status, 200, JSON.stringify(page.body))
    if (page.body.statuses[sent] === 'read') {
      assert.equal(Object.keys(page.body.statuses).length, 1, 'only own messages have ticks')
      break
    }
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
})
