import assert from 'node:assert/strict'
import { after, before, test } from 'node:test'
import type { proto } from '@whiskeysockets/baileys'
import type { Sandbox } from './index'
import { inboxEntry, linkedClient, startTestSandbox } from './testing/sandbox-fixture'
import type { SandboxClient } from './testing/sandbox-client'

const ME = '15550001111'
const OTHER = '15550002222'
const ALICE = '15551230001'
const BOB = '15551230002'

let sandbox: Sandbox
let device: SandboxClient
let otherDevice: SandboxClient
let groupId: string
let aliceLid: string

before(async () => {
  sandbox = await startTestSandbox()
  aliceLid = (await sandbox.control.addAccount({ phone: ALICE, name: 'Alice' })).lid
  await sandbox.control.addAccount({ phone: BOB, name: 'Bob' })
  // Both read what they get at once (phones leave messages unread by default).
  for (const phone of [ALICE, BOB]) await sandbox.control.setBehaviour(phone, { reads: 'instantly' })
  ;[device, otherDevice] = await Promise.all([linkedClient(sandbox, ME), linkedClient(sandbox, OTHER)])
  groupId = (await sandbox.control.createGroup({ subject: 'Team', participants: [ME, ALICE, BOB, OTHER] }))
    .groupId
})

after(async () => {
  await Promise.all([device.stop(), otherDevice.stop()])
  await sandbox.close()
})

function textOf(message: proto.IWebMessageInfo): string | null | undefined {
  return message.message?.conversation ?? message.message?.extendedTextMessage?.text
}

test('a member device reads group metadata addressed by LID with phone numbers, and lists its groups', async () => {
  assert.ok(device.sock)
  const metadata = await device.sock.groupMetadata(groupId)
  assert.equal(metadata.subject, 'Team')
  assert.equal(metadata.participants.length, 4)
  const alice = metadata.participants.find((p) => p.phoneNumber === `${ALICE}@s.whatsapp.net`)
  assert.match(alice?.id ?? '', /@lid$/)
  assert.equal(
    metadata.participants.find((p) => p.phoneNumber === `${ME}@s.whatsapp.net`)?.admin,
    'superadmin',
  )
  const groups = await device.sock.groupFetchAllParticipating()
  assert.deepEqual(Object.keys(groups), [groupId])
})

test('a group message from a device reaches contacts through sender keys and other linked members relayed', async () => {
  assert.ok(device.sock)
  for (const text of ['hello team', 'second message on the same sender key']) {
    const sent = await device.sock.sendMessage(groupId, { text })
    const id = sent?.key.id ?? ''
    for (const phone of [ALICE, BOB]) {
      const entry = await inboxEntry(sandbox, phone, id)
      assert.equal(entry.text, text)
      assert.equal(entry.chat, groupId)
      assert.equal(entry.from, ME)
    }
    const relayed = await otherDevice.waitForMessage(id)
    assert.equal(textOf(relayed), text)
    assert.equal(relayed.key.remoteJid, groupId)
  }
})

test('contacts acknowledge a group message with receipts that name them as participants', async () => {
  assert.ok(device.sock)
  const sent = await device.sock.sendMessage(groupId, { text: 'who read this?' })
  const id = sent?.key.id ?? ''
  await device.waitFor(
    () => device.groupReceipts.filter((r) => r.key.id === id && r.receipt.readTimestamp).length >= 2,
    'read receipts from Alice and Bob',
  )
})

test('a contact group message reaches every linked member with its sender key, and the other contact inbox', async () => {
  const { id } = await sandbox.control.send(ALICE, { to: groupId, text: 'hi from alice' })
  for (const client of [device, otherDevice]) {
    const received = await client.waitForMessage(id)
    assert.equal(textOf(received), 'hi from alice')
    assert.equal(received.key.remoteJid, groupId)
    assert.equal(received.key.participant, aliceLid)
  }
  assert.equal((await inboxEntry(sandbox, BOB, id)).text, 'hi from alice')
  const again = await sandbox.control.send(ALICE, { to: groupId, text: 'same sender key' })
  assert.equal(textOf(await device.waitForMessage(again.id)), 'same sender key')
})

test('a group the network makes is announced to every linked member, and one a device makes to the others', async () => {
  for (const client of [device, otherDevice]) {
    const announced = await client.waitFor(() => client.groups.find((g) => g.id === groupId), 'groups.upsert')
    assert.equal(announced.subject, 'Team')
  }
  assert.ok(device.sock)
  const made = await device.sock.groupCreate('Made by a device', [
    `${OTHER}@s.whatsapp.net`,
    `${ALICE}@s.whatsapp.net`,
  ])
  const seen = await otherDevice.waitFor(
    () => otherDevice.groups.find((g) => g.id === made.id),
    'groups.upsert',
  )
  assert.equal(seen.subject, 'Made by a device')
  assert.equal(seen.participants.length, 3)
  const sent = await device.sock.sendMessage(made.id, { text: 'first in the new group' })
  assert.equal((await inboxEntry(sandbox, ALICE, sent?.key.id ?? '')).chat, made.id)
})

test('a non-member cannot send to a group', async () => {
  await sandbox.control.addAccount({ phone: '15559990000' })
  await assert.rejects(sandbox.control.send('15559990000', { to: groupId, text: 'let me in' }), {
    code: 'invalid_parameter',
  })
})
