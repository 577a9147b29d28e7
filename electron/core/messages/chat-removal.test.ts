import assert from 'node:assert/strict'
import { test } from 'node:test'
import { linkedClient } from '@linkdesk/sandbox/testing'
import { linkedCoreFixture } from '../testing/linked-core'

const ME = '15550820001'
const ALICE = '15550820002'
const BOB = '15550820003'
const CAROL = '15550820004'
const DAVE = '15550820005'

const linked = linkedCoreFixture(
  ME,
  [ALICE, BOB, CAROL, DAVE].map((phone) => ({ phone, name: `Contact ${phone}` })),
)

/** A contact writes to the account; answers the message's chat id as the instance stores it. */
async function write(phone: string, text: string): Promise<string> {
  const { id } = await linked.control.send(phone, { to: ME, text })
  const event = await linked.events.waitFor(
    (e) => e.event === 'message.received' && e.data.id === id,
    `the message from ${phone}`,
  )
  return String(event.data.chat)
}

async function api(operation: string, params: Record<string, unknown>) {
  const { status, body } = await linked.api(operation, params)
  assert.equal(status, 200, `${operation}: ${JSON.stringify(body)}`)
  return body
}

const listed = async (chat: string) => (await api('chats', { number: chat })).chats[0]
const messageIds = async (chat: string): Promise<string[]> =>
  (await api('chat_messages', { number: chat })).messages.map((m: { id: string }) => m.id)
const allChats = async (): Promise<string[]> =>
  (await api('chats', {})).chats.map((c: { chat: string }) => c.chat)
const removals = (event: string, chat: string) =>
  linked.events.seen.filter((e) => e.event === event && e.data.chat === chat)

test('a clear through the API reaches the phone and another linked device, removes the chat’s stored messages, keeps its flags and is announced', async () => {
  const chat = await write(ALICE, 'one')
  await write(ALICE, 'two')
  await api('archive_chat', { number: ALICE })
  assert.equal((await messageIds(chat)).length, 2)
  const other = await linkedClient(linked.core.sandbox!, ME)
  try {
    const cleared = await api('clear_chat', { number: ALICE })
    assert.deepEqual(cleared, { status: 'success', chat, messages_removed: 2 })
    const phone = linked.control.appState(ME).chats[chat]
    assert.ok(phone?.clearedAt, `the phone shows it cleared: ${JSON.stringify(phone)}`)
    assert.equal(phone.archived, true)
    await other.waitFor(
      () => other.unprocessedMutations.some(({ index }) => index[0] === 'clearChat' && index[1] === chat),
      'the clear on the account’s other device',
    )
    const event = await linked.events.waitFor(
      (e) => e.event === 'chat.cleared' && e.data.chat === chat,
      'chat.cleared',
    )
    assert.deepEqual(event.data, { chat, source: 'api', messages_removed: 2 })
    assert.deepEqual(await messageIds(chat), [])
    assert.equal(await listed(chat), undefined)

    // The next message brings the chat back, with its flags; the adapter's report of this app's own clear
    // (handled before it) removed nothing more and announced nothing.
    await write(ALICE, 'three')
    assert.equal((await messageIds(chat)).length, 1)
    assert.equal((await listed(chat))?.archived, true)
    assert.equal(removals('chat.cleared', chat).length, 1)
  } finally {
    await other.stop()
  }
})

test('a delete through the API reaches the phone and another linked device, removes the chat from chats and forgets its flags', async () => {
  const chat = await write(BOB, 'hello')
  await api('pin_chat', { number: BOB })
  const other = await linkedClient(linked.core.sandbox!, ME)
  try {
    const deleted = await api('delete_chat', { number: BOB })
    assert.deepEqual(deleted, { status: 'success', chat, messages_removed: 1 })
    const phone = linked.control.appState(ME).chats[chat]
    assert.ok(phone?.deletedAt, `the phone shows it deleted: ${JSON.stringify(phone)}`)
    assert.equal(phone.pinned, undefined)
    await other.waitFor(() => other.chatDeletes.includes(chat), 'the delete on the account’s other device')
    const event = await linked.events.waitFor(
      (e) => e.event === 'chat.deleted' && e.data.chat === chat,
      'chat.deleted',
    )
    assert.deepEqual(event.data, { chat, source: 'api', messages_removed: 1 })
    assert.ok(!(await allChats()).includes(chat))
    assert.deepEqual(await messageIds(chat), [])

    await write(BOB, 'again')
    const back = await listed(chat)
    assert.equal(back?.messages, 1)
    assert.equal(back?.pinned, false, 'the pin went with the deleted chat')
    assert.equal(removals('chat.deleted', chat).length, 1)
  } finally {
    await other.stop()
  }
})

test('a clear and a delete made on the phone arrive as chat.cleared and chat.deleted (source phone) and change the store', async () => {
  const chat = await write(CAROL, 'one')
  await write(CAROL, 'two')
  await linked.control.changeAppState(ME, { chat: CAROL, clear: true })
  const cleared = await linked.events.waitFor(
    (e) => e.event === 'chat.cleared' && e.data.chat === chat,
    'the phone’s clear',
  )
  assert.deepEqual(cleared.data, { chat, source: 'phone', messages_removed: 2 })
  assert.deepEqual(await messageIds(chat), [])
  assert.equal(await listed(chat), undefined)

  await write(CAROL, 'three')
  await api('mute_chat', { number: CAROL })
  await linked.control.changeAppState(ME, { chat: CAROL, delete: true })
  const deleted = await linked.events.waitFor(
    (e) => e.event === 'chat.deleted' && e.data.chat === chat,
    'the phone’s delete',
  )
  assert.deepEqual(deleted.data, { chat, source: 'phone', messages_removed: 1 })
  assert.ok(!(await allChats()).includes(chat))
  await write(CAROL, 'four')
  assert.equal((await listed(chat))?.muted, false, 'the mute went with the deleted chat')
})

test('a group chat is cleared and deleted by its group id; the phone shows each', async () => {
  const { groupId } = await linked.control.createGroup({ subject: 'Clearing crew', participants: [DAVE, ME] })
  const { id } = await linked.control.send(DAVE, { to: groupId, text: 'Crew, hello' })
  await linked.events.waitFor((e) => e.event === 'message.received' && e.data.id === id, 'the group message')
  const cleared = await api('clear_chat', { number: groupId })
  assert.deepEqual(cleared, { status: 'success', chat: groupId, messages_removed: 1 })
  assert.ok(linked.control.appState(ME).chats[groupId]?.clearedAt)
  assert.deepEqual(await messageIds(groupId), [])
  const { id: again } = await linked.control.send(DAVE, { to: groupId, text: 'Crew, again' })
  await linked.events.waitFor(
    (e) => e.event === 'message.received' && e.data.id === again,
    'the next group message',
  )
  assert.equal((await api('delete_chat', { number: groupId })).messages_removed, 1)
  assert.ok(linked.control.appState(ME).chats[groupId]?.deletedAt)
  assert.ok(!(await allChats()).includes(groupId))
})

test('an unknown chat is chat_not_found and a malformed number invalid: nothing is sent and nothing removed', async () => {
  const chat = await write(DAVE, 'kept')
  const before = linked.control.appState(ME).versions
  const events = linked.events.seen.length
  for (const operation of ['clear_chat', 'delete_chat']) {
    const unknown = await linked.api(operation, { number: '15550829999' })
    assert.equal(unknown.status, 404, JSON.stringify(unknown.body))
    assert.equal(unknown.body.code, 'chat_not_found')
    const malformed = await linked.api(operation, { number: 'not a number' })
    assert.equal(malformed.status, 400, JSON.stringify(malformed.body))
    const missing = await linked.api(operation, {})
    assert.equal(missing.status, 400, JSON.stringify(missing.body))
  }
  assert.deepEqual(linked.control.appState(ME).versions, before, 'no patch reached the network')
  assert.equal((await messageIds(chat)).length, 1)
  assert.deepEqual(
    linked.events.seen.slice(events).filter((e) => e.event.startsWith('chat.')),
    [],
  )
})
