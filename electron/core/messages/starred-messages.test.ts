import assert from 'node:assert/strict'
import { test } from 'node:test'
import { linkedClient } from '@linkdesk/sandbox/testing'
import { linkedCoreFixture } from '../testing/linked-core'

const ME = '15550820001'
const ALICE = '15550820002'

const linked = linkedCoreFixture(ME, [{ phone: ALICE, name: 'Alice' }])

/** Alice writes to the account; answers the message's id and chat as the instance stored them. */
async function received(text: string): Promise<{ id: string; chat: string }> {
  const { id } = await linked.control.send(ALICE, { to: ME, text })
  const event = await linked.events.waitFor(
    (e) => e.event === 'message.received' && e.data.id === id,
    `the message ${text}`,
  )
  return { id, chat: String(event.data.chat) }
}

async function starredIn(chat: string): Promise<string[]> {
  const { status, body } = await linked.api('chat_messages', { number: chat })
  assert.equal(status, 200, JSON.stringify(body))
  return body.starred
}

test('a star through the API reaches the phone and another linked device, is listed and announced; unstar undoes it', async () => {
  const { id, chat } = await received('star me')
  const other = await linkedClient(linked.core.sandbox!, ME)
  try {
    const starred = await linked.api('star_message', { message_id: id })
    assert.equal(starred.status, 200, JSON.stringify(starred.body))
    assert.deepEqual({ ...starred.body }, { status: 'success', id, chat, starred: true })
    assert.deepEqual(linked.control.appState(ME).starred[chat], [id], 'the phone shows it starred')
    await other.waitFor(
      () => other.updates.some(({ key, update }) => key.id === id && update.starred === true),
      'the star on the account’s other device',
    )
    const event = await linked.events.waitFor(
      (e) => e.event === 'message.starred' && e.data.id === id,
      'message.starred',
    )
    assert.deepEqual(event.data, { id, chat, starred: true })
    assert.deepEqual(await starredIn(chat), [id])

    const back = await linked.api('unstar_message', { message_id: id })
    assert.equal(back.status, 200, JSON.stringify(back.body))
    assert.equal(back.body.starred, false)
    assert.deepEqual(linked.control.appState(ME).starred[chat], [])
    await other.waitFor(
      () => other.updates.some(({ key, update }) => key.id === id && update.starred === false),
      'the unstar on the other device',
    )
    assert.deepEqual(await starredIn(chat), [])
  } finally {
    await other.stop()
  }
})

test('a star made on another linked device arrives as message.starred and shows in chat_messages', async () => {
  const { id, chat } = await received('star me elsewhere')
  const other = await linkedClient(linked.core.sandbox!, ME)
  try {
    await other.sock!.chatModify({ star: { messages: [{ id, fromMe: false }], star: true } }, chat)
    const event = await linked.events.waitFor(
      (e) => e.event === 'message.starred' && e.data.id === id && e.data.starred === true,
      'the other device’s star',
    )
    assert.equal(event.data.chat, chat)
    assert.deepEqual(await starredIn(chat), [id])
  } finally {
    await other.stop()
  }
})

test('starring an unknown message is message_not_found and nothing reaches the network', async () => {
  await received('so a chat exists')
  const before = linked.control.appState(ME)
  const unknown = await linked.api('star_message', { message_id: '3EB0000000000000DEAD' })
  assert.equal(unknown.status, 404, JSON.stringify(unknown.body))
  assert.equal(unknown.body.code, 'message_not_found')
  assert.equal(unknown.body.details.parameter, 'message_id')
  const missing = await linked.api('unstar_message', {})
  assert.equal(missing.status, 400, JSON.stringify(missing.body))
  const after = linked.control.appState(ME)
  assert.deepEqual(after.versions, before.versions, 'no patch reached the network')
  assert.deepEqual(after.starred, before.starred)
})
