import assert from 'node:assert/strict'
import { test } from 'node:test'
import {
  type BinaryNode,
  chatModificationToAppPatch,
  encodeSyncdPatch,
  newLTHashState,
  proto,
} from '@whiskeysockets/baileys'
import { linkedClient, linkedDeviceFixture } from './testing/sandbox-fixture'

const ME = '15550630001'
const ALICE = '15550630002'

const linked = linkedDeviceFixture(ME, [{ phone: ALICE, name: 'Alice' }])

test('a display name one device sets reaches the account’s other device by app-state sync, and the network', async () => {
  const other = await linkedClient(linked.sandbox, ME)
  try {
    assert.ok(linked.device.sock && other.sock)
    await linked.device.sock.updateProfileName('Front desk')
    assert.equal(linked.sandbox.control.accounts().find((a) => a.phone === ME)?.name, 'Front desk')
    await other.waitFor(
      () => other.sock?.authState.creds.me?.name === 'Front desk',
      'the other device’s name',
    )
    // A device linked later reads the collection from its start.
    const later = await linkedClient(linked.sandbox, ME)
    try {
      await later.waitFor(
        () => later.sock?.authState.creds.me?.name === 'Front desk',
        'the new device’s name',
      )
    } finally {
      await later.stop()
    }
  } finally {
    await other.stop()
  }
})

test('a patch the network cannot read, or made from an old version, is refused and nothing is kept', async () => {
  const sock = linked.device.sock
  assert.ok(sock)
  const push = (version: string, patch: Uint8Array): Promise<BinaryNode> =>
    sock.query({
      tag: 'iq',
      attrs: { to: 's.whatsapp.net', type: 'set', xmlns: 'w:sync:app:state' },
      content: [
        {
          tag: 'sync',
          attrs: {},
          content: [
            {
              tag: 'collection',
              attrs: { name: 'critical_block', version },
              content: [{ tag: 'patch', attrs: {}, content: patch }],
            },
          ],
        },
      ],
    })
  const before = linked.sandbox.control.accounts().find((a) => a.phone === ME)?.name
  await assert.rejects(
    push('0', Buffer.from('not a patch')),
    (error: any) => error.data === 409 || error.data === 400,
  )
  const current = await sock.query({
    tag: 'iq',
    attrs: { to: 's.whatsapp.net', type: 'set', xmlns: 'w:sync:app:state' },
    content: [
      {
        tag: 'sync',
        attrs: {},
        content: [{ tag: 'collection', attrs: { name: 'critical_block', version: '0' } }],
      },
    ],
  })
  const version = (current.content as BinaryNode[])[0]?.content as BinaryNode[]
  const collection = version[0] as BinaryNode
  await assert.rejects(
    push(collection.attrs.version ?? '0', Buffer.from('not a patch')),
    (error: any) => error.data === 400,
  )
  assert.equal(linked.sandbox.control.accounts().find((a) => a.phone === ME)?.name, before)
})

test('a chat one device archives and pins is kept by the network, with MACs checked, and reaches the other device', async () => {
  const other = await linkedClient(linked.sandbox, ME)
  try {
    const sock = linked.device.sock
    assert.ok(sock)
    const chat = `${ALICE}@s.whatsapp.net`
    await sock.chatModify({ archive: true, lastMessages: [] }, chat)
    await sock.chatModify({ pin: true }, chat)
    const state = linked.sandbox.control.appState(ME)
    assert.equal(state.chats[chat]?.archived, true)
    assert.equal(state.chats[chat]?.pinned, true)
    await other.waitFor(
      () =>
        other.chatUpdates.some((update) => update.id === chat && update.archived === true) &&
        other.chatUpdates.some((update) => update.id === chat && Boolean(update.pinned)),
      'the archive and the pin on the other device',
    )
  } finally {
    await other.stop()
  }
})

test('the phone mutes, marks unread and saves a name: the linked device syncs each change and verifies it', async () => {
  const chat = `${ALICE}@s.whatsapp.net`
  const until = Date.now() + 8 * 60 * 60_000
  await linked.sandbox.control.changeAppState(ME, { chat: ALICE, mutedUntil: until, unread: true })
  await linked.sandbox.control.changeAppState(ME, { chat: ALICE, savedName: 'Alice Cooper' })
  const device = linked.device
  await device.waitFor(
    () =>
      device.chatUpdates.some((update) => update.id === chat && update.muteEndTime === until) &&
      device.chatUpdates.some((update) => update.id === chat && update.unreadCount === -1),
    'the mute and the unread mark',
  )
  await device.waitFor(
    () => device.contactUpserts.some((contact) => contact.id === chat && contact.name === 'Alice Cooper'),
    'the saved name',
  )
  assert.deepEqual(linked.sandbox.control.appState(ME).chats[chat]?.mutedUntil, until)
  assert.equal(linked.sandbox.control.appState(ME).contacts[chat], 'Alice Cooper')
})

test('a patch whose snapshot MAC does not match the collection’s LTHash is refused, and nothing is kept', async () => {
  const sock = linked.device.sock
  assert.ok(sock)
  const chat = `${ALICE}@s.whatsapp.net`
  await sock.chatModify({ pin: false }, chat)
  const before = linked.sandbox.control.appState(ME)
  const keyId = sock.authState.creds.myAppStateKeyId
  assert.ok(keyId)
  // Encoded onto an empty collection although the network's is at a later version: a forked LTHash.
  const { patch } = await encodeSyncdPatch(
    chatModificationToAppPatch({ pin: true }, chat),
    keyId,
    newLTHashState(),
    async (id) => (await sock.authState.keys.get('app-state-sync-key', [id]))[id],
  )
  const version = String(before.versions.regular_low ?? 0)
  await assert.rejects(
    sock.query({
      tag: 'iq',
      attrs: { to: 's.whatsapp.net', type: 'set', xmlns: 'w:sync:app:state' },
      content: [
        {
          tag: 'sync',
          attrs: {},
          content: [
            {
              tag: 'collection',
              attrs: { name: 'regular_low', version },
              content: [{ tag: 'patch', attrs: {}, content: proto.SyncdPatch.encode(patch).finish() }],
            },
          ],
        },
      ],
    }),
    (error: any) => error.data === 400,
  )
  const after = linked.sandbox.control.appState(ME)
  assert.deepEqual(after.versions, before.versions)
  assert.deepEqual(after.chats[chat], before.chats[chat])
})

test('a chat one device clears, then deletes, is kept by the network with MACs checked and reaches the other device', async () => {
  const other = await linkedClient(linked.sandbox, ME)
  try {
    const sock = linked.device.sock
    assert.ok(sock)
    const chat = `${ALICE}@s.whatsapp.net`
    await sock.chatModify({ pin: true }, chat)
    const last = [{ key: { remoteJid: chat, id: '3EB0AA11', fromMe: false }, messageTimestamp: 1795253914 }]
    await sock.chatModify({ clear: true, lastMessages: last }, chat)
    const cleared = linked.sandbox.control.appState(ME).chats[chat]
    assert.ok(cleared?.clearedAt, JSON.stringify(cleared))
    assert.equal(cleared.pinned, true, 'a clear keeps the chat and its pin')
    await other.waitFor(
      () =>
        other.unprocessedMutations.some(
          ({ index, syncAction }) =>
            index[0] === 'clearChat' &&
            index[1] === chat &&
            Number(syncAction.value?.clearChatAction?.messageRange?.lastMessageTimestamp) === 1795253914,
        ),
      'the clear on the other device',
    )
    await sock.chatModify({ delete: true, lastMessages: last }, chat)
    const deleted = linked.sandbox.control.appState(ME).chats[chat]
    assert.ok(deleted?.deletedAt, JSON.stringify(deleted))
    assert.equal(deleted.pinned, undefined, 'a deleted chat’s settings go with it')
    await other.waitFor(() => other.chatDeletes.includes(chat), 'the delete on the other device')
  } finally {
    await other.stop()
  }
})

test('the phone clears and deletes a chat: the linked device syncs each and verifies it', async () => {
  const chat = `${ALICE}@s.whatsapp.net`
  const device = linked.device
  const before = Date.now()
  await linked.sandbox.control.changeAppState(ME, { chat: ALICE, clear: true })
  await device.waitFor(
    () => device.unprocessedMutations.some(({ index }) => index[0] === 'clearChat' && index[1] === chat),
    'the phone’s clear',
  )
  assert.ok((linked.sandbox.control.appState(ME).chats[chat]?.clearedAt ?? 0) >= before)
  await linked.sandbox.control.changeAppState(ME, { chat: ALICE, delete: true })
  await device.waitFor(() => device.chatDeletes.includes(chat), 'the phone’s delete')
  assert.ok((linked.sandbox.control.appState(ME).chats[chat]?.deletedAt ?? 0) >= before)
})
