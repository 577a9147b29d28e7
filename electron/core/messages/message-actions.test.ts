import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import type { LinkdeskEvent } from '../contract/events'
import { inboxEntry } from '@linkdesk/sandbox/testing'
import { linkedCoreFixture } from '../testing/linked-core'

const ME = '15550420001'
const ALICE = '15550420002'
const BOB = '15550420003'

const linked = linkedCoreFixture(ME, [
  { phone: ALICE, name: 'Alice' },
  { phone: BOB, name: 'Bob' },
])

const control = () => linked.control
const api = linked.api

async function sendText(text: string): Promise<string> {
  const sent = await api('send_message', { number: ALICE, type: 'text', message: text })
  assert.equal(sent.status, 200, JSON.stringify(sent.body))
  await inboxEntry(linked.core.sandbox!, ALICE, sent.body.message.key.id)
  return sent.body.message.key.id
}

function eventFor(name: string, match: (data: Record<string, unknown>) => boolean): Promise<LinkdeskEvent> {
  return linked.events.waitFor((event) => event.event === name && match(event.data), name)
}

describe('the account acts on messages, and the contact sees it', () => {
  test('a reaction arrives on the message, and taking it back arrives too', async () => {
    const target = await sendText('Lunch at noon?')
    const reacted = await api('react', { message_id: target, emoji: '👍' })
    assert.equal(reacted.status, 200, JSON.stringify(reacted.body))
    assert.equal(reacted.body.message.message.reactionMessage.text, '👍')
    const seen = await inboxEntry(linked.core.sandbox!, ALICE, reacted.body.message.key.id)
    assert.equal(seen.type, 'reaction')
    assert.equal(seen.text, '👍')
    assert.equal(seen.targetId, target)
    const event = await eventFor('message.reaction', (data) => data.id === reacted.body.message.key.id)
    assert.equal(event.data.from_me, true)
    assert.equal(event.data.target_id, target)
    assert.equal(event.data.removed, false)

    const removed = await api('react', { message_id: target })
    assert.equal(removed.status, 200)
    const gone = await inboxEntry(linked.core.sandbox!, ALICE, removed.body.message.key.id)
    assert.deepEqual([gone.type, gone.text, gone.targetId], ['reaction', '', target])
    const removal = await eventFor('message.reaction', (data) => data.id === removed.body.message.key.id)
    assert.equal(removal.data.removed, true)
  })

  test('an edit replaces the text the contact sees; a delete for everyone removes it', async () => {
    const target = await sendText('Meeting at 2 pm')
    const edited = await api('edit_message', { message_id: target, message: 'Meeting at 3 pm' })
    assert.equal(edited.status, 200, JSON.stringify(edited.body))
    const edit = await inboxEntry(linked.core.sandbox!, ALICE, edited.body.message.key.id)
    assert.deepEqual([edit.type, edit.text, edit.targetId], ['edit', 'Meeting at 3 pm', target])
    const editEvent = await eventFor('message.edited', (data) => data.target_id === target)
    assert.equal(editEvent.data.text, 'Meeting at 3 pm')
    assert.equal(editEvent.data.from_me, true)

    const deleted = await api('delete_message', { message_id: target })
    assert.equal(deleted.status, 200, JSON.stringify(deleted.body))
    const revoke = await inboxEntry(linked.core.sandbox!, ALICE, deleted.body.message.key.id)
    assert.deepEqual([revoke.type, revoke.targetId], ['revoke', target])
    await eventFor('message.deleted', (data) => data.target_id === target && data.from_me === true)
  })

  test('a received message forwarded to another contact arrives there with its content', async () => {
    const { id } = await control().send(ALICE, { to: ME, text: 'Please pass this on' })
    await eventFor('message.received', (data) => data.id === id)
    const forwarded = await api('forward_message', { message_id: id, number: BOB })
    assert.equal(forwarded.status, 200, JSON.stringify(forwarded.body))
    const seen = await inboxEntry(linked.core.sandbox!, BOB, forwarded.body.message.key.id)
    assert.equal(seen.text, 'Please pass this on')
    assert.equal(seen.from, ME)
  })
})

describe('a contact acts on messages, and the account gets events', () => {
  test('a reaction to the account’s message, and the contact’s edit and delete of its own', async () => {
    const target = await sendText('How was the trip?')
    const reaction = await control().send(ALICE, { to: ME, reaction: { id: target, emoji: '❤️' } })
    const reacted = await eventFor('message.reaction', (data) => data.id === reaction.id)
    assert.equal(reacted.data.from_me, false)
    assert.equal(reacted.data.sender_phone, ALICE)
    assert.equal(reacted.data.target_id, target)
    assert.equal(reacted.data.emoji, '❤️')

    const own = await control().send(ALICE, { to: ME, text: 'It was grate' })
    await eventFor('message.received', (data) => data.id === own.id)
    await control().send(ALICE, { to: ME, edit: { id: own.id, text: 'It was great' } })
    const edited = await eventFor('message.edited', (data) => data.target_id === own.id)
    assert.equal(edited.data.text, 'It was great')
    assert.equal(edited.data.sender_phone, ALICE)
    await control().send(ALICE, { to: ME, revoke: { id: own.id } })
    const deleted = await eventFor('message.deleted', (data) => data.target_id === own.id)
    assert.equal(deleted.data.from_me, false)
  })
})

describe('bad requests change nothing', () => {
  test('unknown messages, someone else’s message, a late edit, a missing text and a bad emoji are refused', async () => {
    const mine = await sendText('Original')
    const { id: theirs } = await control().send(ALICE, { to: ME, text: 'Not yours to edit' })
    await eventFor('message.received', (data) => data.id === theirs)
    // A text of this account's, stored as sent an hour ago: past the edit window.
    const old = (await linked.core.messages.store.get(linked.instanceId, mine))!
    const oldId = 'OLD0000000000000000001'
    const hourAgo = String(Math.floor(Date.now() / 1000) - 3600)
    await linked.core.messages.store.addSent(linked.instanceId, {
      ...old,
      message: { ...old.message, id: oldId, timestamp: hourAgo },
      networkKey: old.networkKey && { ...old.networkKey, id: oldId },
    })
    const before = control().inbox(ALICE).length
    const cases: Array<[string, Record<string, unknown>, number, string, RegExp]> = [
      ['react', { message_id: 'NO-SUCH-ID', emoji: '👍' }, 404, 'message_not_found', /NO-SUCH-ID/],
      ['react', { message_id: mine, emoji: 'x'.repeat(40) }, 400, 'invalid_parameter', /emoji/],
      ['edit_message', { message_id: 'NO-SUCH-ID', message: 'x' }, 404, 'message_not_found', /NO-SUCH-ID/],
      [
        'edit_message',
        { message_id: theirs, message: 'mine now' },
        422,
        'action_not_allowed',
        /someone else/,
      ],
      ['edit_message', { message_id: oldId, message: 'too late' }, 422, 'action_not_allowed', /15 minutes/],
      ['edit_message', { message_id: mine }, 400, 'missing_parameter', /message/],
      ['delete_message', { message_id: theirs }, 422, 'action_not_allowed', /someone else/],
      ['forward_message', { message_id: mine, number: '19990000000' }, 422, 'recipient_not_found', /./],
      ['forward_message', { message_id: 'NO-SUCH-ID', number: BOB }, 404, 'message_not_found', /NO-SUCH-ID/],
    ]
    for (const [operation, params, status, code, message] of cases) {
      const answer = await api(operation, params)
      assert.equal(answer.status, status, JSON.stringify([operation, params, answer.body]))
      assert.equal(answer.body.code, code, JSON.stringify([operation, params]))
      assert.match(answer.body.message, message)
    }
    await new Promise((resolve) => setTimeout(resolve, 300))
    assert.equal(control().inbox(ALICE).length, before, 'the contact got nothing')
  })

  test('the sandbox network refuses a contact’s edit of someone else’s message', async () => {
    const mine = await sendText('Mine')
    await assert.rejects(
      control().send(ALICE, { to: ME, edit: { id: mine, text: 'changed' } }),
      /Only its sender/,
    )
  })
})
