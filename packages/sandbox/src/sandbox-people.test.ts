import assert from 'node:assert/strict'
import { after, before, test } from 'node:test'
import { proto, type WAMessageKey } from '@whiskeysockets/baileys'
import type { Sandbox } from './index'
import { inboxEntry, linkedClient, startTestSandbox } from './testing/sandbox-fixture'
import type { SandboxClient } from './testing/sandbox-client'
import { solidPng } from './testing/solid-png'

// Two accounts, each with a raw Baileys client linked as its device: what one does, the other's device sees.
const ANN = '15550370001'
const BEN = '15550370002'
const { DELIVERY_ACK, READ } = proto.WebMessageInfo.Status

let sandbox: Sandbox
let ann: SandboxClient
let ben: SandboxClient

before(async () => {
  sandbox = await startTestSandbox()
  ann = await linkedClient(sandbox, ANN)
  ben = await linkedClient(sandbox, BEN)
})

after(async () => {
  await ann.stop()
  await ben.stop()
  await sandbox.close()
})

function sock(client: SandboxClient) {
  assert.ok(client.sock)
  return client.sock
}

const jid = (phone: string) => `${phone}@s.whatsapp.net`

/** Ann writes to Ben; answers the key once Ben's linked device has the message and Ann saw it delivered. */
async function annToBen(text: string): Promise<WAMessageKey> {
  const sent = await sock(ann).sendMessage(jid(BEN), { text })
  const id = sent?.key.id ?? ''
  const received = await ben.waitForMessage(id)
  await ann.waitForStatus(id, DELIVERY_ACK)
  return received.key
}

/** The furthest status Ann's device saw for a message it sent (Baileys may fold updates into the upsert). */
const statusAtAnn = (id: string | null | undefined) =>
  Math.max(
    0,
    ...ann.updates.filter((u) => u.key.id === id).map((u) => u.update.status ?? 0),
    ...ann.upserts.filter((u) => u.message.key.id === id).map((u) => u.message.status ?? 0),
  )

test('typing on one account’s linked device reaches the other account’s linked device and its phone', async () => {
  await sock(ann).sendPresenceUpdate('composing', jid(BEN))
  const update = await ben.waitFor(
    () =>
      ben.presences.find(
        (p) => p.id === jid(ANN) && p.presences[jid(ANN)]?.lastKnownPresence === 'composing',
      ),
    'Ann typing, on Ben’s device',
  )
  assert.equal(update.id, jid(ANN))
  assert.ok(sandbox.control.presence(BEN).chatStates.some((s) => s.from === ANN && s.state === 'composing'))
  const typed = ben.presences.length
  await sock(ann).sendPresenceUpdate('paused', jid(BEN))
  // Baileys shows a paused chat state as the contact being back to merely online.
  await ben.waitFor(
    () => ben.presences.slice(typed).find((p) => p.presences[jid(ANN)]?.lastKnownPresence === 'available'),
    'Ann paused, on Ben’s device',
  )
})

test('by default a phone reads nothing itself: the sender’s blue ticks are the ones a linked device’s mark_read gives', async () => {
  const unread = await annToBen('left unread')
  const read = await annToBen('read on the linked device')
  await sock(ben).readMessages([read])
  await ann.waitForStatus(read.id ?? '', READ)
  assert.equal(statusAtAnn(unread.id), DELIVERY_ACK, 'what nobody read stays delivered')
})

test('a phone told to read after a delay reads by itself; told to, it is online while active and types before its echo', async (t) => {
  // Ben goes back to the default whatever happens, so the tests after this one see a quiet phone.
  t.after(() =>
    sandbox.control.setBehaviour(BEN, { reads: 'never', typesBeforeReply: false, online: 'never' }),
  )
  await sandbox.control.addAccount({ phone: BEN, autoReply: 'echo' })
  await sandbox.control.setBehaviour(BEN, {
    reads: 'after',
    readAfterMs: 200,
    typesBeforeReply: true,
    online: 'while_active',
  })
  await sock(ann).presenceSubscribe(jid(BEN))
  const seenBefore = ann.presences.length
  const sent = await sock(ann).sendMessage(jid(BEN), { text: 'are you there' })
  await ann.waitForStatus(sent?.key.id ?? '', READ)
  await ann.waitFor(
    () => ann.upserts.some((u) => u.message.message?.conversation === 'echo: are you there'),
    'the echo',
  )
  const shown = () => ann.presences.slice(seenBefore).map((p) => p.presences[jid(BEN)]?.lastKnownPresence)
  await ann.waitFor(() => shown().includes('unavailable'), 'Ben offline once done')
  assert.ok(shown().indexOf('available') < shown().indexOf('composing'), 'online before typing')
  assert.ok(shown().indexOf('composing') < shown().lastIndexOf('unavailable'), 'offline after the reply')
})

test('a 1:1 read shows blue ticks only while both sides keep read receipts on', async () => {
  for (const [off, name] of [
    [ann, 'Ann'],
    [ben, 'Ben'],
  ] as const) {
    await sock(off).updateReadReceiptsPrivacy('none')
    const hidden = await annToBen('read while receipts are off')
    const handled = sandbox.control.events.waitFor('receipt', (r) => r.ids.includes(hidden.id ?? ''))
    await sock(ben).readMessages([hidden])
    await handled // the network has Ben's read before the setting changes back
    await sock(off).updateReadReceiptsPrivacy('all')
    const shown = await annToBen('read with receipts on')
    await sock(ben).readMessages([shown])
    // The network relays a device's receipts in order: once the later read arrived, the earlier would have.
    await ann.waitForStatus(shown.id ?? '', READ)
    assert.equal(statusAtAnn(hidden.id), DELIVERY_ACK, `no blue ticks while ${name}’s read receipts are off`)
  }
})

test('privacy acts on what contacts receive: last seen, online, profile photo and about', async () => {
  await sandbox.control.setPicture(BEN, solidPng(8, 8, [0, 120, 200]))
  await sandbox.control.addAccount({ phone: BEN, about: 'at work' })
  const about = async () => (await sock(ann).fetchStatus(jid(BEN)))?.[0] as { status?: { status?: string } }
  const benSeen = () => ann.presences.flatMap((p) => (p.presences[jid(BEN)] ? [p.presences[jid(BEN)]!] : []))
  await sock(ann).presenceSubscribe(jid(BEN))
  let seen = benSeen().length
  sandbox.control.showPresence(BEN, { state: 'unavailable' })
  const shownLast = await ann.waitFor(() => benSeen()[seen], 'Ben offline, shared')
  assert.equal(shownLast.lastKnownPresence, 'unavailable')
  assert.equal(typeof shownLast.lastSeen, 'number', 'last seen shared by default')
  assert.ok(await sock(ann).profilePictureUrl(jid(BEN)), 'the photo shows by default')
  assert.equal((await about()).status?.status, 'at work')

  await sock(ben).updateLastSeenPrivacy('none')
  await sock(ben).updateProfilePicturePrivacy('none')
  await sock(ben).updateStatusPrivacy('none')
  seen = benSeen().length
  sandbox.control.showPresence(BEN, { state: 'unavailable' })
  const hiddenLast = await ann.waitFor(() => benSeen()[seen], 'Ben offline, last seen hidden')
  assert.equal(hiddenLast.lastKnownPresence, 'unavailable')
  assert.equal(hiddenLast.lastSeen, undefined, 'no last seen once hidden')
  await assert.rejects(
    sock(ann).profilePictureUrl(jid(BEN)),
    (error: { data?: number }) => error.data === 401,
  )
  assert.equal((await about()).status?.status, '', 'a hidden about reads empty')
  assert.ok(await sock(ben).profilePictureUrl(jid(BEN)), 'Ben still sees his own photo')

  // Online matching a hidden last seen: going online shows nothing; once shared again, it does.
  await sock(ben).updateOnlinePrivacy('match_last_seen')
  seen = benSeen().length
  sandbox.control.showPresence(BEN, { state: 'available' })
  await sock(ben).updateOnlinePrivacy('all')
  sandbox.control.showPresence(BEN, { state: 'unavailable' })
  // Presence reaches Ann's device in the order the network sends it: the later change arrived, the earlier did not.
  const next = await ann.waitFor(() => benSeen()[seen], 'Ben offline after online was hidden')
  assert.equal(next.lastKnownPresence, 'unavailable')
  await sock(ben).updateLastSeenPrivacy('all')
  await sock(ben).updateProfilePicturePrivacy('all')
  await sock(ben).updateStatusPrivacy('contacts')
  assert.ok(await sock(ann).profilePictureUrl(jid(BEN)), 'the photo shows again')
})

test('a phone’s behaviour is checked whole: a wrong value changes nothing', async () => {
  const before = sandbox.control.accounts().find((a) => a.phone === BEN)?.behaviour
  const online = sandbox.control.presence(BEN).online
  await assert.rejects(
    sandbox.control.setBehaviour(BEN, { reads: 'sometimes' as never, online: 'always' }),
    /reads must be one of/,
  )
  await assert.rejects(sandbox.control.setBehaviour(BEN, { readAfterMs: -1 }), /read_after_ms/)
  assert.deepEqual(sandbox.control.accounts().find((a) => a.phone === BEN)?.behaviour, before)
  assert.equal(sandbox.control.presence(BEN).online, online, 'an invalid change did not put the phone online')
  const entry = await inboxEntry(sandbox, BEN, (await annToBen('still here')).id ?? '')
  assert.equal(entry.text, 'still here')
})
