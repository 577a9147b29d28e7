import assert from 'node:assert/strict'
import { test } from 'node:test'
import { linkedClient } from '@linkdesk/sandbox/testing'
import { waitForStatus } from '../testing/instance-harness'
import { linkedCoreFixture } from '../testing/linked-core'

const ME = '15550810001'
const ALICE = '15550810002'
const BOB = '15550810003'
const CAROL = '15550810004'
const DAVE = '15550810005'
const ERIN = '15550810006'
const CONTACTS = [ALICE, BOB, CAROL, DAVE, ERIN]

const linked = linkedCoreFixture(
  ME,
  CONTACTS.map((phone) => ({ phone, name: `Contact ${phone}` })),
)

/** Each contact writes to the account once; answers each one's chat id as the instance stores it. */
const chats = new Map<string, string>()
async function chatOf(phone: string): Promise<string> {
  const known = chats.get(phone)
  if (known) return known
  const { id } = await linked.control.send(phone, { to: ME, text: `hello from ${phone}` })
  const event = await linked.events.waitFor(
    (e) => e.event === 'message.received' && e.data.id === id,
    `the message from ${phone}`,
  )
  const chat = String(event.data.chat)
  chats.set(phone, chat)
  return chat
}

function listed(chat: string): Promise<Record<string, unknown> | undefined> {
  return linked.api('chats', { number: chat }).then(({ status, body }) => {
    assert.equal(status, 200, JSON.stringify(body))
    return body.chats[0]
  })
}

const versions = () => linked.control.appState(ME).versions

test('an archive through the API reaches the phone and another linked device, is listed and announced', async () => {
  const chat = await chatOf(ALICE)
  const other = await linkedClient(linked.core.sandbox!, ME)
  try {
    const archived = await linked.api('archive_chat', { number: ALICE })
    assert.equal(archived.status, 200, JSON.stringify(archived.body))
    assert.equal(archived.body.archived, true)
    assert.equal(linked.control.appState(ME).chats[chat]?.archived, true, 'the phone shows it archived')
    await other.waitFor(
      () => other.chatUpdates.some((update) => update.id === chat && update.archived === true),
      'the archive on the account’s other device',
    )
    const event = await linked.events.waitFor(
      (e) => e.event === 'chat.updated' && e.data.chat === chat,
      'chat.updated',
    )
    assert.deepEqual(event.data.changed, ['archived'])
    assert.equal((await listed(chat))?.archived, true)

    const back = await linked.api('unarchive_chat', { number: ALICE })
    assert.equal(back.status, 200, JSON.stringify(back.body))
    assert.equal(linked.control.appState(ME).chats[chat]?.archived, false)
    await other.waitFor(
      () => other.chatUpdates.some((update) => update.id === chat && update.archived === false),
      'the unarchive on the other device',
    )
    assert.equal((await listed(chat))?.archived, false)
  } finally {
    await other.stop()
  }
})

test('three chats pin; a fourth pin is refused with pin_limit_reached and nothing is sent', async () => {
  for (const phone of [ALICE, BOB, CAROL]) {
    await chatOf(phone)
    const pinned = await linked.api('pin_chat', { number: phone })
    assert.equal(pinned.status, 200, JSON.stringify(pinned.body))
    assert.equal(pinned.body.pinned, true)
  }
  const dave = await chatOf(DAVE)
  const before = versions()
  const refused = await linked.api('pin_chat', { number: DAVE })
  assert.equal(refused.status, 409, JSON.stringify(refused.body))
  assert.equal(refused.body.code, 'pin_limit_reached')
  assert.equal(refused.body.details.pinned.length, 3)
  assert.deepEqual(versions(), before, 'no patch reached the network')
  assert.equal(linked.control.appState(ME).chats[dave]?.pinned, undefined)
  assert.equal((await listed(dave))?.pinned, false)
  // Unpinning one makes room.
  assert.equal((await linked.api('unpin_chat', { number: CAROL })).status, 200)
  const now = await linked.api('pin_chat', { number: DAVE })
  assert.equal(now.status, 200, JSON.stringify(now.body))
  assert.equal(linked.control.appState(ME).chats[dave]?.pinned, true)
})

test('an unknown chat, a mute end that has passed and until with duration are refused, and nothing is sent', async () => {
  await chatOf(BOB)
  const before = versions()
  const unknown = await linked.api('archive_chat', { number: '15550819999' })
  assert.equal(unknown.status, 404, JSON.stringify(unknown.body))
  assert.equal(unknown.body.code, 'chat_not_found')
  const past = await linked.api('mute_chat', { number: BOB, until: Math.floor(Date.now() / 1000) - 60 })
  assert.equal(past.status, 400, JSON.stringify(past.body))
  assert.equal(past.body.code, 'invalid_parameter')
  assert.equal(past.body.details.parameter, 'until')
  const both = await linked.api('mute_chat', { number: BOB, until: 4102444800, duration: 60 })
  assert.equal(both.status, 400, JSON.stringify(both.body))
  assert.deepEqual(versions(), before, 'no patch reached the network')
  assert.equal((await listed(await chatOf(BOB)))?.muted, false)
})

test('a mute and an unread mark made on the phone arrive as chat.updated and show in chats', async () => {
  const chat = await chatOf(ERIN)
  const until = Date.now() + 8 * 60 * 60_000
  await linked.control.changeAppState(ME, { chat: ERIN, mutedUntil: until })
  const muted = await linked.events.waitFor(
    (e) => e.event === 'chat.updated' && e.data.chat === chat && e.data.muted === true,
    'the phone’s mute',
  )
  assert.equal(muted.data.muted_until, Math.floor(until / 1000))
  assert.deepEqual(muted.data.changed, ['muted'])
  await linked.control.changeAppState(ME, { chat: ERIN, unread: true })
  await linked.events.waitFor(
    (e) => e.event === 'chat.updated' && e.data.chat === chat && e.data.marked_unread === true,
    'the phone’s unread mark',
  )
  const shown = await listed(chat)
  assert.equal(shown?.muted, true)
  assert.equal(shown?.muted_until, Math.floor(until / 1000))
  assert.equal(shown?.marked_unread, true)
  const read = await linked.api('mark_chat_read', { number: ERIN })
  assert.equal(read.status, 200, JSON.stringify(read.body))
  assert.equal(linked.control.appState(ME).chats[chat]?.unread, false, 'the phone shows it read')
})

test('a restart keeps the app-state versions and the flags: the instance syncs on from them, never from 0', async () => {
  const erin = await chatOf(ERIN)
  const kept = versions()
  assert.ok((kept.regular_low ?? 0) > 0 && (kept.regular_high ?? 0) > 0, JSON.stringify(kept))
  await linked.restart()
  await waitForStatus(linked.core, linked.instanceId, (s) => s.state === 'connected', 'the reconnection')
  assert.equal((await listed(erin))?.muted, true, 'the flags are kept')
  await linked.control.changeAppState(ME, { chat: ERIN, mutedUntil: null })
  await linked.events.waitFor(
    (e) => e.event === 'chat.updated' && e.data.chat === erin && e.data.muted === false,
    'the phone’s unmute after the restart',
    30_000,
  )
  const asked = linked.control.appState(ME).requests
  for (const [collection, version] of Object.entries(kept)) {
    if (version === 0) continue
    const fromStart = asked.filter((request) => request.collection === collection && request.version === 0)
    assert.deepEqual(fromStart, [], `${collection} was not synced again from version 0`)
  }
  assert.ok(
    asked.some((request) => request.collection === 'regular_high' && request.version >= kept.regular_high!),
    JSON.stringify(asked),
  )
})
