import assert from 'node:assert/strict'
import { test } from 'node:test'
import type { SandboxInboxEntry } from '@linkdesk/sandbox'
import { linkedClient } from '@linkdesk/sandbox/testing'
import { linkedCoreFixture } from '../testing/linked-core'

const ME = '15550830001'
const ALICE = '15550830002'
const BOB = '15550830003'

const linked = linkedCoreFixture(ME, [
  { phone: ALICE, name: 'Alice' },
  { phone: BOB, name: 'Bob' },
])

/** The contact writes to the account once; answers the chat id as the instance stores it. */
async function chatWith(phone: string): Promise<string> {
  const { id } = await linked.control.send(phone, { to: ME, text: `hello from ${phone}` })
  const event = await linked.events.waitFor(
    (e) => e.event === 'message.received' && e.data.id === id,
    `the message from ${phone}`,
  )
  return String(event.data.chat)
}

/** The entry of the contact's inbox that matches: there already, or the next to arrive. */
async function arrived(phone: string, what: string, match: (entry: SandboxInboxEntry) => boolean) {
  const found = linked.control.inbox(phone).find(match)
  if (found) return found
  const { entry } = await linked.control.events
    .waitFor('message', (event) => event.phone === phone && match(event.entry), 30_000)
    .catch((error: unknown) => {
      throw new Error(`${what} never arrived`, { cause: error })
    })
  return entry
}

async function sendText(text: string): Promise<string> {
  const sent = await linked.api('send_message', { number: ALICE, type: 'text', message: text })
  assert.equal(sent.status, 200, JSON.stringify(sent.body))
  return sent.body.message.key.id
}

test('a timer set through the API reaches the contact, and the messages sent afterwards carry it until it is turned off', async () => {
  const chat = await chatWith(ALICE)
  const set = await linked.api('set_disappearing_timer', { number: ALICE, timer: 604800 })
  assert.equal(set.status, 200, JSON.stringify(set.body))
  assert.equal(set.body.disappearing_timer, 604800)
  await arrived(ALICE, 'the timer at Alice', (e) => e.type === 'disappearing' && e.expiration === 604800)
  const event = await linked.events.waitFor(
    (e) => e.event === 'chat.updated' && e.data.chat === chat && e.data.disappearing_timer === 604800,
    'chat.updated',
  )
  assert.deepEqual(event.data.changed, ['disappearing_timer'])
  const listed = await linked.api('chats', { number: ALICE })
  assert.equal(listed.body.chats[0].disappearing_timer, 604800)

  const lasting = await sendText('gone in a week')
  const entry = await arrived(ALICE, 'the message', (e) => e.id === lasting)
  assert.equal(entry.expiration, 604800, 'the message carries the chat’s timer')

  const off = await linked.api('set_disappearing_timer', { number: ALICE, timer: 0 })
  assert.equal(off.status, 200, JSON.stringify(off.body))
  assert.equal(off.body.disappearing_timer, 0)
  await arrived(ALICE, 'the timer turned off', (e) => e.type === 'disappearing' && e.expiration === 0)
  const kept = await sendText('here to stay')
  assert.equal((await arrived(ALICE, 'the message', (e) => e.id === kept)).expiration, null)
})

test('a timer set on another linked device of the account arrives as chat.updated', async () => {
  const chat = await chatWith(BOB)
  const other = await linkedClient(linked.core.sandbox!, ME)
  try {
    await other.sock!.sendMessage(chat, { disappearingMessagesInChat: 86400 })
    const event = await linked.events.waitFor(
      (e) => e.event === 'chat.updated' && e.data.chat === chat && e.data.disappearing_timer === 86400,
      'the other device’s timer',
    )
    assert.deepEqual(event.data.changed, ['disappearing_timer'])
    assert.equal((await linked.api('chats', { number: BOB })).body.chats[0].disappearing_timer, 86400)
  } finally {
    await other.stop()
  }
})

test('a timer the apps do not offer, a missing one and an unknown chat are refused, and nothing is sent', async () => {
  await chatWith(ALICE)
  const before = linked.control.inbox(ALICE).length
  const odd = await linked.api('set_disappearing_timer', { number: ALICE, timer: 3600 })
  assert.equal(odd.status, 400, JSON.stringify(odd.body))
  assert.equal(odd.body.code, 'invalid_parameter')
  assert.equal(odd.body.details.parameter, 'timer')
  const negative = await linked.api('set_disappearing_timer', { number: ALICE, timer: -1 })
  assert.equal(negative.status, 400, JSON.stringify(negative.body))
  const missing = await linked.api('set_disappearing_timer', { number: ALICE })
  assert.equal(missing.status, 400, JSON.stringify(missing.body))
  const unknown = await linked.api('set_disappearing_timer', { number: '15550839999', timer: 86400 })
  assert.equal(unknown.status, 404, JSON.stringify(unknown.body))
  assert.equal(unknown.body.code, 'chat_not_found')
  // A message sent after the refusals is the next thing Alice gets: nothing went before it.
  const after = await sendText('after the refusals')
  await arrived(ALICE, 'the message', (e) => e.id === after)
  assert.deepEqual(
    linked.control
      .inbox(ALICE)
      .slice(before)
      .map((e) => e.id),
    [after],
  )
})

test('a group’s timer is the group’s setting: set through the API, every member is told; a member turning it off arrives as chat.updated', async () => {
  const created = await linked.api('create_group', { subject: 'Fleeting', participants: [ALICE, BOB] })
  assert.equal(created.status, 200, JSON.stringify(created.body))
  const group = created.body.group.id as string
  const hello = await linked.api('send_message', { number: group, type: 'text', message: 'hello all' })
  assert.equal(hello.status, 200, JSON.stringify(hello.body))
  // Alice's own linked device hears what the network tells the members.
  const alices = await linkedClient(linked.core.sandbox!, ALICE)
  try {
    const told = new Promise<number | null | undefined>((resolve) =>
      alices.sock!.ev.on('chats.update', (updates) => {
        const update = updates.find((u) => u.id === group && u.ephemeralExpiration !== undefined)
        if (update) resolve(update.ephemeralExpiration)
      }),
    )
    const set = await linked.api('set_disappearing_timer', { number: group, timer: 7776000 })
    assert.equal(set.status, 200, JSON.stringify(set.body))
    assert.equal(set.body.disappearing_timer, 7776000)
    assert.equal(linked.control.group(group).ephemeral, 7776000, 'the network keeps the group’s timer')
    assert.equal(await told, 7776000, 'a member’s device is told')
    await linked.events.waitFor(
      (e) => e.event === 'chat.updated' && e.data.chat === group && e.data.disappearing_timer === 7776000,
      'the group’s chat.updated',
    )
    assert.equal((await linked.api('chats', { number: group })).body.chats[0].disappearing_timer, 7776000)
  } finally {
    await alices.stop()
  }

  await linked.control.changeGroup(BOB, group, { action: 'ephemeral', seconds: 0 })
  assert.equal(linked.control.group(group).ephemeral, 0)
  const off = await linked.events.waitFor(
    (e) => e.event === 'chat.updated' && e.data.chat === group && e.data.disappearing_timer === 0,
    'Bob turning it off',
  )
  assert.deepEqual(off.data.changed, ['disappearing_timer'])
})

test('in a group whose info only admins edit, a member who is not one cannot change the timer, from the phone or the API', async () => {
  const created = await linked.api('create_group', { subject: 'Locked', participants: [ALICE] })
  assert.equal(created.status, 200, JSON.stringify(created.body))
  const group = created.body.group.id as string
  assert.equal((await linked.api('update_group', { group_id: group, only_admins_edit: true })).status, 200)
  await assert.rejects(
    linked.control.changeGroup(ALICE, group, { action: 'ephemeral', seconds: 86400 }),
    /only admins edit this group/,
  )
  assert.equal(linked.control.group(group).ephemeral, 0, 'nothing changed')

  // The same for this account in Bob's locked group: 403 not_group_admin from the API, nothing changed.
  const { groupId: bobs } = await linked.control.createGroup({
    subject: 'Bob’s rules',
    participants: [BOB, ME],
  })
  await linked.control.changeGroup(BOB, bobs, { action: 'restrict', on: true })
  const hello = await linked.api('send_message', { number: bobs, type: 'text', message: 'hello Bob' })
  assert.equal(hello.status, 200, JSON.stringify(hello.body))
  const refused = await linked.api('set_disappearing_timer', { number: bobs, timer: 86400 })
  assert.equal(refused.status, 403, JSON.stringify(refused.body))
  assert.equal(refused.body.code, 'not_group_admin')
  assert.equal(linked.control.group(bobs).ephemeral, 0, 'nothing changed on the network')
  assert.equal((await linked.api('chats', { number: bobs })).body.chats[0].disappearing_timer, 0)
})
