import assert from 'node:assert/strict'
import { test } from 'node:test'
import type { LinkdeskEvent } from '../contract/events'
import { linkedCoreFixture } from '../testing/linked-core'
import { eventually } from '../testing/messaging-harness'

/** Reads until `done` holds: the chats join in the store after the message that made the pair known. */
async function until<T>(read: () => Promise<T>, done: (value: T) => boolean, what: string): Promise<T> {
  const deadline = Date.now() + 30_000
  for (;;) {
    const value = await read()
    if (done(value)) return value
    if (Date.now() > deadline) throw new Error(`${what}: not within 30 s (last: ${JSON.stringify(value)})`)
    await new Promise((resolve) => setTimeout(resolve, 250))
  }
}

const ME = '15550370001'
const STRANGER = '15550370002'
const NEWCOMER = '15550370003'

/** Both contacts have not shared their numbers with ME: their messages come by LID alone. */
const linked = linkedCoreFixture(
  ME,
  [
    { phone: STRANGER, name: 'Stranger' },
    { phone: NEWCOMER, name: 'Newcomer' },
  ],
  {},
  async (control) => {
    await control.addAccount({ phone: ME })
    for (const phone of [STRANGER, NEWCOMER]) await control.shareNumber(phone, { with: ME, shared: false })
  },
)

const lidOf = (phone: string) => {
  const account = linked.control.accounts().find((a) => a.phone === phone)
  if (!account) throw new Error(`no account ${phone}`)
  return account.lid.replace(/:\d+@/, '@')
}

async function received(id: string): Promise<LinkdeskEvent> {
  return linked.events.waitFor((e) => e.event === 'message.received' && e.data.id === id, `message ${id}`)
}

async function ok(operation: string, params: Record<string, unknown>) {
  const { status, body } = await linked.api(operation, params)
  assert.equal(status, 200, JSON.stringify(body))
  return body
}

/** The chats of the instance that are this person's, by either id. */
async function chatsOf(phone: string, lid: string) {
  const { chats } = await ok('chats', { limit: 500 })
  return (chats as Array<{ chat: string; messages: number }>).filter(
    ({ chat }) => chat === `${phone}@s.whatsapp.net` || chat === lid,
  )
}

/** Every stored message of a chat, read a page of `limit` at a time. */
async function allMessages(number: string, limit: number) {
  const messages: Array<Record<string, unknown>> = []
  let cursor: string | undefined
  do {
    const body = await ok('chat_messages', { number, limit, ...(cursor && { cursor }) })
    messages.push(...body.messages)
    cursor = body.next_cursor ?? undefined
  } while (cursor)
  return messages
}

test('a stranger writes by LID with its number hidden; once it shares its number, its messages are one chat under the number', async () => {
  const lid = lidOf(STRANGER)
  const phoneChat = `${STRANGER}@s.whatsapp.net`
  const first = await linked.control.send(STRANGER, { to: ME, text: 'hello, we have not met' })
  const second = await linked.control.send(STRANGER, { to: ME, text: 'are you there?' })
  for (const { id } of [first, second]) {
    const { data } = await received(id)
    assert.equal(data.chat, lid)
    assert.equal(data.sender, lid)
    assert.equal(data.sender_lid, lid)
    assert.equal(data.sender_phone, null)
  }
  assert.deepEqual(
    (await chatsOf(STRANGER, lid)).map(({ chat, messages }) => [chat, messages]),
    [[lid, 2]],
  )

  // The app answers the LID chat: the reply reaches the stranger's phone.
  const reply = await ok('send_message', { number: lid, type: 'text', message: 'who is this?' })
  assert.equal(reply.message.key.remoteJid, lid)
  await eventually(
    () => linked.control.inbox(STRANGER).filter((entry) => entry.id === reply.message.key.id),
    (found) => found.length === 1,
    'the reply in the stranger’s inbox',
  )

  // The stranger shares its number and sends its contact card: the network now names it by both.
  await linked.control.shareNumber(STRANGER, { with: ME, shared: true })
  const card = await linked.control.send(STRANGER, {
    to: ME,
    contacts: [{ name: 'Stranger', phone: STRANGER }],
  })
  const { data: cardData } = await received(card.id)
  assert.equal(cardData.chat, phoneChat)
  assert.equal(cardData.sender_phone, STRANGER)
  assert.equal(cardData.sender_lid, lid)

  const [chat, ...others] = await until(
    () => chatsOf(STRANGER, lid),
    (found) => found.length === 1 && found[0]?.chat === phoneChat && found[0]?.messages === 4,
    'one chat under the number',
  )
  assert.deepEqual(others, [])
  assert.equal(chat?.chat, phoneChat)

  const messages = await allMessages(phoneChat, 3)
  assert.deepEqual(
    messages.map((m) => m.id),
    [card.id, reply.message.key.id, second.id, first.id],
  )
  for (const message of messages) assert.equal(message.chat, phoneChat)
  for (const message of messages.filter((m) => !m.from_me)) {
    assert.equal(message.sender, phoneChat)
    assert.equal(message.sender_phone, STRANGER)
    assert.equal(message.sender_lid, lid)
  }
  // Asked by its LID, the chat is the number's.
  const byLid = await ok('chats', { number: lid })
  assert.deepEqual(
    byLid.chats.map((c: { chat: string; messages: number }) => [c.chat, c.messages]),
    [[phoneChat, 4]],
  )
  const { contacts } = await ok('contacts', { limit: 500 })
  assert.deepEqual(
    contacts.filter((c: { lid: string | null }) => c.lid === lid),
    [{ chat: phoneChat, phone: STRANGER, lid, push_name: 'Stranger', saved_name: null }],
  )

  // A send to the LID once the number is known: it reaches the phone, in the number's chat.
  const toLid = await ok('send_message', { number: lid, type: 'text', message: 'nice to meet you' })
  assert.equal(toLid.message.key.remoteJid, lid)
  const sentEvent = await linked.events.waitFor(
    (e) => e.event === 'message.sent' && e.data.id === toLid.message.key.id,
    'the send to the LID',
  )
  assert.equal(sentEvent.data.chat, phoneChat)
  await eventually(
    () => linked.control.inbox(STRANGER).filter((entry) => entry.id === toLid.message.key.id),
    (found) => found.length === 1,
    'the send to the LID in the stranger’s inbox',
  )
  assert.deepEqual(
    (await chatsOf(STRANGER, lid)).map(({ chat, messages }) => [chat, messages]),
    [[phoneChat, 5]],
  )

  // Once known, the mapping names the person by both ids even where the network gives only the LID.
  await linked.control.shareNumber(STRANGER, { with: ME, shared: false })
  const later = await linked.control.send(STRANGER, { to: ME, text: 'by LID again' })
  const { data: laterData } = await received(later.id)
  assert.equal(laterData.chat, phoneChat)
  assert.equal(laterData.sender_phone, STRANGER)
  assert.equal(laterData.sender_lid, lid)
})

test('a LID-only chat joins the number once the app sends to the number (the network answers its LID query)', async () => {
  const lid = lidOf(NEWCOMER)
  const phoneChat = `${NEWCOMER}@s.whatsapp.net`
  const { id } = await linked.control.send(NEWCOMER, { to: ME, text: 'hi from a LID' })
  assert.equal((await received(id)).data.chat, lid)

  const sent = await ok('send_message', { number: NEWCOMER, type: 'text', message: 'I have your number' })
  assert.equal(sent.message.key.remoteJid, phoneChat)
  const [chat, ...others] = await until(
    () => chatsOf(NEWCOMER, lid),
    (found) => found.length === 1 && found[0]?.chat === phoneChat && found[0]?.messages === 2,
    'one chat under the number',
  )
  assert.deepEqual(others, [])
  assert.equal(chat?.chat, phoneChat)
  const messages = await allMessages(phoneChat, 1)
  assert.deepEqual(
    messages.map((m) => [m.id, m.chat, m.sender_phone]),
    [
      [sent.message.key.id, phoneChat, ME],
      [id, phoneChat, NEWCOMER],
    ],
  )
})
