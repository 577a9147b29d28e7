import assert from 'node:assert/strict'
import { after, before, test } from 'node:test'
import { getBinaryNodeChild, getBinaryNodeChildren } from '@whiskeysockets/baileys'
import type { Sandbox } from './index'
import { inboxEntry, linkedClient, startTestSandbox } from './testing/sandbox-fixture'
import type { SandboxClient } from './testing/sandbox-client'
import { solidPng } from './testing/solid-png'

const ME = '15550003111'
const OTHER = '15550003222'
const ALICE = '15551233001'
const BOB = '15551233002'
const CAROL = '15551233003'
const pn = (phone: string) => `${phone}@s.whatsapp.net`

let sandbox: Sandbox
let device: SandboxClient
let otherDevice: SandboxClient
let groupId: string

before(async () => {
  sandbox = await startTestSandbox()
  await sandbox.control.addAccount({ phone: ALICE, name: 'Alice' })
  await sandbox.control.addAccount({ phone: BOB, name: 'Bob' })
  await sandbox.control.addAccount({ phone: CAROL, name: 'Carol', groupsAdd: 'contacts' })
  ;[device, otherDevice] = await Promise.all([linkedClient(sandbox, ME), linkedClient(sandbox, OTHER)])
  assert.ok(device.sock)
  groupId = (await device.sock.groupCreate('Admin team', [pn(OTHER), pn(ALICE)])).id
})

after(async () => {
  await Promise.all([device.stop(), otherDevice.stop()])
  await sandbox.close()
})

/** The account's LID: notifications name who acted by LID (Baileys drops the phone number beside it). */
function lidOf(phone: string): string | undefined {
  return sandbox.control.accounts().find((account) => account.phone === phone)?.lid
}

function rolesOf(id: string): Record<string, string | null> {
  return Object.fromEntries(sandbox.control.group(id).members.map((member) => [member.phone, member.role]))
}

/** The participant change a device saw for the group, of that action, naming that phone (the latest first). */
function participantChange(client: SandboxClient, id: string, action: string, phone: string) {
  return client.waitFor(
    () =>
      client.participantChanges.findLast(
        (change) =>
          change.id === id &&
          change.action === action &&
          change.participants.some((p) => p.phoneNumber === pn(phone)),
      ),
    `${action} of ${phone}`,
  )
}

test('an admin adds, promotes and removes members: the network changes and every member device is told', async () => {
  assert.ok(device.sock)
  const added = await device.sock.groupParticipantsUpdate(groupId, [pn(BOB)], 'add')
  assert.deepEqual(
    added.map((result) => result.status),
    ['200'],
  )
  assert.equal(rolesOf(groupId)[BOB], null)
  const seen = await participantChange(otherDevice, groupId, 'add', BOB)
  assert.equal(seen.author, lidOf(ME))

  await device.sock.groupParticipantsUpdate(groupId, [pn(OTHER)], 'promote')
  assert.equal(rolesOf(groupId)[OTHER], 'admin')
  await participantChange(otherDevice, groupId, 'promote', OTHER)
  assert.equal(
    (await otherDevice.sock?.groupMetadata(groupId))?.participants.find((p) => p.phoneNumber === pn(OTHER))
      ?.admin,
    'admin',
  )

  await device.sock.groupParticipantsUpdate(groupId, [pn(BOB)], 'remove')
  assert.equal(rolesOf(groupId)[BOB], undefined)
  await participantChange(otherDevice, groupId, 'remove', BOB)
})

test('each participant gets its own result: already a member, not on the network, privacy refusing the add', async () => {
  assert.ok(device.sock)
  const results = await device.sock.groupParticipantsUpdate(
    groupId,
    [pn(ALICE), pn('15559998877'), pn(CAROL)],
    'add',
  )
  assert.deepEqual(
    results.map((result) => result.status),
    ['409', '404', '403'],
  )
  const request = results[2]?.content?.content
  assert.ok(Array.isArray(request) && request[0]?.tag === 'add_request' && request[0].attrs.code)
  assert.equal(rolesOf(groupId)[CAROL], undefined)
  // Accepting the invitation the refused add made joins the group.
  const code = request[0].attrs.code
  await sandbox.control.joinGroup(CAROL, code)
  assert.equal(rolesOf(groupId)[CAROL], null)
  await participantChange(device, groupId, 'add', CAROL)
})

test('subject, description and settings reach the other member device; only admins send once announce is on', async () => {
  assert.ok(device.sock)
  await device.sock.groupUpdateSubject(groupId, 'Renamed team')
  await device.sock.groupUpdateDescription(groupId, 'Where the team talks')
  await device.sock.groupSettingUpdate(groupId, 'announcement')
  await device.sock.groupSettingUpdate(groupId, 'locked')
  await otherDevice.waitFor(
    () => otherDevice.groupUpdates.some((u) => u.id === groupId && u.subject === 'Renamed team'),
    'subject',
  )
  await otherDevice.waitFor(
    () => otherDevice.groupUpdates.some((u) => u.id === groupId && u.desc === 'Where the team talks'),
    'description',
  )
  await otherDevice.waitFor(
    () => otherDevice.groupUpdates.some((u) => u.id === groupId && u.announce === true),
    'announce',
  )
  await otherDevice.waitFor(
    () => otherDevice.groupUpdates.some((u) => u.id === groupId && u.restrict === true),
    'restrict',
  )
  const info = sandbox.control.group(groupId)
  assert.equal(info.subject, 'Renamed team')
  assert.equal(info.description, 'Where the team talks')
  assert.ok(info.announce && info.restrict)
  const metadata = await otherDevice.sock?.groupMetadata(groupId)
  assert.equal(metadata?.desc, 'Where the team talks')
  assert.ok(metadata?.announce && metadata.restrict)
  await assert.rejects(sandbox.control.send(ALICE, { to: groupId, text: 'may I?' }), { code: 'conflict' })
  await device.sock.groupSettingUpdate(groupId, 'not_announcement')
  await device.sock.groupSettingUpdate(groupId, 'unlocked')
  assert.ok(!sandbox.control.group(groupId).announce)
})

test('where only admins send, a non-admin member is refused from a linked device too: an error ack, and nobody gets it', async () => {
  assert.ok(device.sock && otherDevice.sock)
  const made = await device.sock.groupCreate('Announcements', [pn(OTHER), pn(ALICE)])
  await device.sock.groupSettingUpdate(made.id, 'announcement')
  assert.equal(sandbox.control.group(made.id).members.find((m) => m.phone === OTHER)?.role, null)
  const refused = await otherDevice.sock.sendMessage(made.id, { text: 'may I, from my laptop?' })
  const refusedId = refused?.key.id ?? ''
  // Baileys may fold the error into the message's own upsert while it holds its events.
  const failed = await otherDevice.waitFor(
    () =>
      otherDevice.updates.find((u) => u.key.id === refusedId && u.update.status === 0)?.update ??
      otherDevice.upserts.find((u) => u.message.key.id === refusedId && u.message.status === 0)?.message,
    'the error ack',
  )
  assert.deepEqual(failed.messageStubParameters, ['403'])
  // The admin's message, sent after, arrives everywhere; the refused one, before it, nowhere.
  const allowed = await device.sock.sendMessage(made.id, { text: 'admins may' })
  await inboxEntry(sandbox, ALICE, allowed?.key.id ?? '')
  await inboxEntry(sandbox, OTHER, allowed?.key.id ?? '')
  assert.ok(!sandbox.control.inbox(ALICE).some((entry) => entry.id === refusedId))
  assert.ok(!device.upserts.some((u) => u.message.key.id === refusedId))
})

test('the network refuses a non-admin, a subject over 100 characters and a group the device is not in', async () => {
  assert.ok(device.sock)
  const made = await device.sock.groupCreate('Mine only', [pn(OTHER)])
  await assert.rejects(otherDevice.sock!.groupParticipantsUpdate(made.id, [pn(ALICE)], 'add'), { data: 403 })
  await assert.rejects(device.sock.groupUpdateSubject(made.id, 'x'.repeat(101)), { data: 406 })
  const elsewhere = await sandbox.control.createGroup({ subject: 'Not ours', participants: [ALICE, BOB] })
  await assert.rejects(device.sock.groupUpdateSubject(elsewhere.groupId, 'taken'), { data: 404 })
  assert.equal(sandbox.control.group(made.id).members.length, 2)
  assert.equal(sandbox.control.group(elsewhere.groupId).subject, 'Not ours')
})

test('a change made by a contact who is admin arrives on the linked devices with the contact as its author', async () => {
  assert.ok(device.sock)
  await device.sock.groupParticipantsUpdate(groupId, [pn(ALICE)], 'promote')
  device.participantChanges.length = 0
  await sandbox.control.changeGroup(ALICE, groupId, { action: 'subject', subject: 'Alice named it' })
  const update = await device.waitFor(
    () => device.groupUpdates.find((u) => u.id === groupId && u.subject === 'Alice named it'),
    'subject by Alice',
  )
  assert.equal(update.author, lidOf(ALICE))
  const { results } = await sandbox.control.changeGroup(ALICE, groupId, {
    action: 'add',
    participants: [BOB],
  })
  assert.deepEqual(results, [{ phone: BOB, error: null }])
  const added = await participantChange(device, groupId, 'add', BOB)
  assert.equal(added.author, lidOf(ALICE))
  await assert.rejects(
    sandbox.control.changeGroup(BOB, groupId, { action: 'remove', participants: [ALICE] }),
    {
      code: 'conflict',
    },
  )
})

test('invite codes: an admin reads and revokes them, a contact joins with the current one only', async () => {
  assert.ok(device.sock)
  const made = await device.sock.groupCreate('By invite', [pn(OTHER)])
  const code = await device.sock.groupInviteCode(made.id)
  assert.ok(code)
  const info = await device.sock.groupGetInviteInfo(code)
  assert.equal(info.subject, 'By invite')
  const fresh = await device.sock.groupRevokeInvite(made.id)
  assert.notEqual(fresh, code)
  await assert.rejects(sandbox.control.joinGroup(BOB, code), { code: 'conflict' })
  await sandbox.control.joinGroup(BOB, fresh ?? '')
  const joined = await participantChange(otherDevice, made.id, 'add', BOB)
  assert.equal(joined.author, lidOf(BOB))
  await assert.rejects(device.sock.groupGetInviteInfo('not-a-code'), { data: 404 })
})

test('a group picture set by a device is served to members, who are told of it', async () => {
  assert.ok(device.sock)
  await device.sock.updateProfilePicture(groupId, solidPng(64, 64, [40, 120, 200]))
  await otherDevice.waitFor(
    () => otherDevice.contactUpdates.some((u) => u.id === groupId),
    'picture notification',
  )
  const url = await otherDevice.sock?.profilePictureUrl(groupId, 'image')
  assert.match(url ?? '', /^https:/)
  assert.ok(sandbox.control.group(groupId).pictureId)
})

test('a member that leaves is gone from the group, and the others see it leave', async () => {
  assert.ok(device.sock)
  await otherDevice.sock?.groupLeave(groupId)
  assert.equal(rolesOf(groupId)[OTHER], undefined)
  const left = await participantChange(device, groupId, 'remove', OTHER)
  assert.equal(left.author, lidOf(OTHER))
  await assert.rejects(otherDevice.sock!.groupMetadata(groupId), { data: 404 })
  const sent = await device.sock.sendMessage(groupId, { text: 'after the leave' })
  assert.equal((await inboxEntry(sandbox, BOB, sent?.key.id ?? '')).text, 'after the leave')
})

test('a group made with someone whose privacy refuses adds is made without them; the answer names them with an invitation', async () => {
  assert.ok(device.sock)
  const answer = await device.sock.query({
    tag: 'iq',
    attrs: { type: 'set', xmlns: 'w:g2', to: '@g.us' },
    content: [
      {
        tag: 'create',
        attrs: { subject: 'Carol left out', key: 'K1' },
        content: [pn(ALICE), pn(CAROL)].map((jid) => ({ tag: 'participant', attrs: { jid } })),
      },
    ],
  })
  const made = getBinaryNodeChild(answer, 'group')
  const id = `${made?.attrs.id}@g.us`
  assert.deepEqual(rolesOf(id), { [ME]: 'superadmin', [ALICE]: null })
  const refused = getBinaryNodeChildren(made, 'participant').filter((p) => p.attrs.error)
  assert.deepEqual(
    refused.map((p) => [p.attrs.jid, p.attrs.error]),
    [[pn(CAROL), '403']],
  )
  const code = getBinaryNodeChild(refused[0], 'add_request')?.attrs.code
  assert.ok(code)
  await sandbox.control.joinGroup(CAROL, code)
  assert.equal(rolesOf(id)[CAROL], null)
})
