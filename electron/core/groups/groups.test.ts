import assert from 'node:assert/strict'
import { after, test } from 'node:test'
import sharp from 'sharp'
import type { LinkdeskEvent } from '../contract/events'
import { call } from '../testing/instance-harness'
import { linkedCoreFixture } from '../testing/linked-core'
import { linkedInstance } from '../testing/messaging-harness'
import { inboxEntry, linkedClient, type SandboxClient } from '@linkdesk/sandbox/testing'

const ME = '15550610001'
const ALICE = '15550610002'
const BOB = '15550610003'
const CAROL = '15550610004'
const NOBODY = '15550619999'

const linked = linkedCoreFixture(ME, [
  { phone: ALICE, name: 'Alice' },
  { phone: BOB, name: 'Bob' },
  { phone: CAROL, name: 'Carol', groupsAdd: 'contacts' },
])

/** Alice's linked device: what another member of the group sees. */
let alice: SandboxClient
let groupId: string

// The fixture's core starts in its own `before`, which a test file's hooks cannot follow: Alice links in the first test.
after(() => alice?.stop())

const roles = (id: string) =>
  Object.fromEntries(linked.control.group(id).members.map((member) => [member.phone, member.role]))

/** The first event of that name for the group `id` matching `match`, already seen or coming. */
function groupEventOf(
  id: string,
  name: string,
  match: (data: any) => boolean = () => true,
): Promise<LinkdeskEvent> {
  return linked.events.waitFor(
    (event) =>
      event.event === name &&
      ((event.data as any).group_id ?? (event.data as any).group?.id) === id &&
      match(event.data),
    name,
  )
}

/** The first event of that name for the test group matching `match`. */
function groupEvent(name: string, match: (data: any) => boolean = () => true): Promise<LinkdeskEvent> {
  return groupEventOf(groupId, name, match)
}

async function ok(operation: string, params: Record<string, unknown>) {
  const answer = await linked.api(operation, params)
  assert.equal(answer.status, 200, `${operation}: ${JSON.stringify(answer.body)}`)
  return answer.body
}

test('create → add → promote → subject → remove → leave: the network changes, other members see each step, events follow', async () => {
  alice = await linkedClient(linked.core.sandbox!, ALICE)
  const created = await ok('create_group', { subject: 'Customer: Acme', participants: [ALICE] })
  groupId = created.group.id
  assert.match(groupId, /^\d+@g\.us$/)
  assert.equal(created.group.is_admin, true)
  assert.deepEqual(roles(groupId), { [ME]: 'superadmin', [ALICE]: null })
  await alice.waitFor(() => alice.groups.find((group) => group.id === groupId), 'Alice told of the new group')
  const joined = await groupEvent('group.joined')
  assert.equal((joined.data as any).group.subject, 'Customer: Acme')

  const added = await ok('group_participants', {
    group_id: groupId,
    action: 'add',
    participants: [BOB, NOBODY],
  })
  assert.deepEqual(
    added.participants.map((p: any) => [p.participant, p.result]),
    [
      [BOB, 'added'],
      [NOBODY, 'not_on_network'],
    ],
  )
  assert.equal(roles(groupId)[BOB], null, 'Bob is a member')
  await alice.waitFor(
    () => alice.participantChanges.find((c) => c.id === groupId && c.action === 'add'),
    'Alice sees Bob added',
  )
  const joinedEvent = await groupEvent('group.participants', (data) => data.action === 'joined')
  assert.equal((joinedEvent.data as any).participants[0].phone, BOB)
  assert.equal((joinedEvent.data as any).by.is_me, true)

  const again = await ok('group_participants', { group_id: groupId, action: 'add', participants: [BOB] })
  assert.equal(again.participants[0].result, 'already_member')

  await ok('group_participants', { group_id: groupId, action: 'promote', participants: [BOB] })
  assert.equal(roles(groupId)[BOB], 'admin')
  await groupEvent('group.participants', (data) => data.action === 'promoted')

  const renamed = await ok('update_group', { group_id: groupId, subject: 'Acme (EU)', description: 'Orders' })
  assert.deepEqual(renamed.changed, ['subject', 'description'])
  assert.equal(linked.control.group(groupId).subject, 'Acme (EU)')
  await alice.waitFor(
    () => alice.groupUpdates.find((u) => u.id === groupId && u.subject === 'Acme (EU)'),
    'Alice sees the subject',
  )
  await groupEvent('group.updated', (data) => data.changes.subject === 'Acme (EU)')

  await ok('group_participants', { group_id: groupId, action: 'remove', participants: [BOB] })
  assert.equal(roles(groupId)[BOB], undefined)
  await groupEvent(
    'group.participants',
    (data) => data.action === 'removed' && data.participants[0].phone === BOB,
  )

  const read = await ok('group', { group_id: groupId })
  assert.deepEqual(read.group.participants.map((p: any) => [p.phone, p.role]).sort(), [
    [ME, 'superadmin'],
    [ALICE, 'member'],
  ])
  assert.equal(read.group.description, 'Orders')
  const listed = await ok('groups', {})
  assert.ok(listed.groups.some((g: any) => g.id === groupId && g.size === 2 && g.is_admin))
})

test('changes made by another admin arrive as events naming who made them', async () => {
  await ok('group_participants', { group_id: groupId, action: 'promote', participants: [ALICE] })
  await linked.control.changeGroup(ALICE, groupId, { action: 'subject', subject: 'Named by Alice' })
  const renamed = await groupEvent('group.updated', (data) => data.changes.subject === 'Named by Alice')
  assert.equal((renamed.data as any).by.phone, ALICE)
  assert.equal((renamed.data as any).by.is_me, false)
  await linked.control.changeGroup(ALICE, groupId, { action: 'announce', on: true })
  await groupEvent('group.updated', (data) => data.changes.only_admins_send === true)
  await linked.control.changeGroup(ALICE, groupId, { action: 'add', participants: [BOB] })
  const added = await groupEvent(
    'group.participants',
    (data) => data.action === 'joined' && data.by?.phone === ALICE,
  )
  assert.equal((added.data as any).participants[0].phone, BOB)
  await linked.control.changeGroup(BOB, groupId, { action: 'leave' })
  await groupEvent(
    'group.participants',
    (data) => data.action === 'left' && data.participants[0].phone === BOB,
  )
})

test('a picture and the admin-only settings are set, and the other members are told', async () => {
  const picture = await sharp({ create: { width: 200, height: 200, channels: 3, background: '#3060c0' } })
    .png()
    .toBuffer()
  const set = await ok('update_group', {
    group_id: groupId,
    media_base64: picture.toString('base64'),
    only_admins_edit: true,
  })
  assert.deepEqual(set.changed, ['only_admins_edit', 'picture'])
  const group = linked.control.group(groupId)
  assert.equal(group.restrict, true)
  assert.ok(group.pictureId, 'the group has a picture')
  await groupEvent('group.updated', (data) => data.changes.picture === true)
  await alice.waitFor(
    () => alice.groupUpdates.find((u) => u.id === groupId && u.restrict === true),
    'Alice sees only admins edit',
  )
})

test('invite round trip: a contact joins by the link, the revoked link stops working', async () => {
  const invite = await ok('group_invite', { group_id: groupId })
  assert.equal(invite.link, `https://chat.whatsapp.com/${invite.code}`)
  const info = await ok('group_invite_info', { code: invite.link })
  assert.equal(info.group.id, groupId)
  await linked.control.joinGroup(CAROL, invite.code)
  assert.equal(roles(groupId)[CAROL], null, 'Carol joined')
  await groupEvent(
    'group.participants',
    (data) => data.action === 'joined' && data.participants[0].phone === CAROL,
  )
  const revoked = await ok('group_invite', { group_id: groupId, revoke: true })
  assert.notEqual(revoked.code, invite.code)
  const stale = await linked.api('group_invite_info', { code: invite.code })
  assert.equal(stale.status, 404, JSON.stringify(stale.body))
  await ok('group_participants', { group_id: groupId, action: 'remove', participants: [CAROL] })
})

test('an add the person’s privacy refuses answers the invitation, and sends it to them on request', async () => {
  // Carol's account is linked to an instance of its own here too: her bot joins with what the message carries.
  const carolInstance = await linkedInstance(linked.core, CAROL)
  const answer = await ok('group_participants', {
    group_id: groupId,
    action: 'add',
    participants: [CAROL],
    send_invite: true,
  })
  const [carol] = answer.participants
  assert.equal(carol.result, 'invite_required')
  assert.ok(carol.invite.code && carol.invite.message_id, JSON.stringify(carol))
  assert.equal(roles(groupId)[CAROL], undefined, 'not added')
  const received = await inboxEntry(linked.core.sandbox!, CAROL, carol.invite.message_id)
  assert.equal(received.type, 'group_invite')
  assert.equal(received.groupInvite?.groupId, groupId)
  assert.equal(received.groupInvite?.code, carol.invite.code)
  const invitation = await linked.events.waitFor(
    (event) =>
      event.event === 'message.received' &&
      event.instance_id === carolInstance &&
      (event.data as any).id === carol.invite.message_id,
    'the invitation on Carol’s instance',
  )
  const data = invitation.data as any
  assert.equal(data.type, 'group_invite')
  assert.equal(data.group_invite.group_id, groupId)
  assert.equal(data.group_invite.code, carol.invite.code)
  const joined = await call(linked.core.apiBase, 'join_group', {
    instance_id: carolInstance,
    code: data.group_invite.code,
  })
  assert.equal(joined.status, 200, JSON.stringify(joined.body))
  assert.equal(joined.body.group_id, groupId)
  assert.equal(roles(groupId)[CAROL], null, 'Carol joined with the invitation')
})

test('the account is added to a group someone else made: group.joined, then it leaves', async () => {
  const { groupId: theirs } = await linked.control.createGroup({
    subject: 'Alice’s club',
    participants: [ALICE, BOB],
  })
  await linked.control.changeGroup(ALICE, theirs, { action: 'add', participants: [ME] })
  const joined = await linked.events.waitFor(
    (event) => event.event === 'group.joined' && (event.data as any).group.id === theirs,
    'group.joined',
  )
  assert.equal((joined.data as any).group.is_admin, false)
  assert.equal((joined.data as any).by.phone, ALICE)
  const notAdmin = await linked.api('group_participants', {
    group_id: theirs,
    action: 'remove',
    participants: [BOB],
  })
  assert.equal(notAdmin.status, 403, JSON.stringify(notAdmin.body))
  assert.equal(notAdmin.body.code, 'not_group_admin')
  assert.equal(roles(theirs)[BOB], null, 'Bob is still there')
  await linked.control.changeGroup(ALICE, theirs, { action: 'restrict', on: true })
  const locked = await linked.api('update_group', { group_id: theirs, subject: 'Mine now' })
  assert.equal(locked.status, 403, JSON.stringify(locked.body))
  assert.equal(locked.body.code, 'not_group_admin')
  assert.equal(linked.control.group(theirs).subject, 'Alice’s club', 'nothing changed')
  await ok('leave_group', { group_id: theirs })
  assert.equal(roles(theirs)[ME], undefined)
  const gone = await linked.api('group', { group_id: theirs })
  assert.equal(gone.status, 404)
  assert.equal(gone.body.code, 'group_not_found')
})

test('bad input is refused with a message naming the problem, and nothing changes', async () => {
  const before = linked.control.group(groupId)
  const cases: Array<[string, Record<string, unknown>, number, string, RegExp]> = [
    ['group', { group_id: ALICE }, 400, 'invalid_parameter', /group_id/],
    ['group', { group_id: '120363999999999999@g.us' }, 404, 'group_not_found', /not a group/],
    ['update_group', { group_id: groupId, subject: 'x'.repeat(101) }, 400, 'invalid_parameter', /100/],
    [
      'update_group',
      { group_id: groupId, subject: 'ok', description: 'x'.repeat(2049) },
      400,
      'invalid_parameter',
      /2048/,
    ],
    ['update_group', { group_id: groupId }, 400, 'missing_parameter', /subject/],
    [
      'group_participants',
      { group_id: groupId, action: 'add', participants: ['not-a-number'] },
      400,
      'invalid_parameter',
      /participant/,
    ],
    [
      'group_participants',
      { group_id: groupId, action: 'kick', participants: [BOB] },
      400,
      'invalid_parameter',
      /action/,
    ],
    ['create_group', { subject: ' ', participants: [ALICE] }, 400, 'missing_parameter', /subject/],
    ['join_group', { code: 'no!' }, 400, 'invalid_parameter', /invite/],
  ]
  for (const [operation, params, status, code, message] of cases) {
    const answer = await linked.api(operation, params)
    assert.equal(answer.status, status, `${operation} ${JSON.stringify([params, answer.body])}`)
    assert.equal(answer.body.code, code, operation)
    assert.match(answer.body.message, message, operation)
  }
  assert.deepEqual(linked.control.group(groupId), before, 'the group is as it was')
})

/** Bob's group with Alice and this account as plain members; this account hears of it first. */
async function bobsGroup(subject: string): Promise<string> {
  const { groupId: id } = await linked.control.createGroup({ subject, participants: [BOB, ALICE, ME] })
  await linked.events.waitFor(
    (event) => event.event === 'group.joined' && (event.data as any).group.id === id,
    'group.joined',
  )
  return id
}

test('a non-admin’s change of the subject and a setting is refused whole: the subject stays, no member hears of it', async () => {
  const theirs = await bobsGroup('Bob’s club')
  const refused = await linked.api('update_group', {
    group_id: theirs,
    subject: 'Mine now',
    only_admins_send: true,
  })
  assert.equal(refused.status, 403, JSON.stringify(refused.body))
  assert.equal(refused.body.code, 'not_group_admin')
  const group = linked.control.group(theirs)
  assert.equal(group.subject, 'Bob’s club', 'the network kept the subject')
  assert.equal(group.announce, false)
  assert.deepEqual(refused.body.details.fields, ['only_admins_send'])
  assert.deepEqual(
    refused.body.details.results.map((r: any) => [r.field, r.result]),
    [
      ['subject', 'not_sent'],
      ['only_admins_send', 'refused'],
    ],
  )
  // A member may rename an open group: that change reaches Alice, and the refused one never came before it.
  const allowed = await ok('update_group', { group_id: theirs, subject: 'Renamed by a member' })
  assert.deepEqual(allowed, { status: 'success', group_id: theirs, changed: ['subject'] })
  await alice.waitFor(
    () => alice.groupUpdates.find((u) => u.id === theirs && u.subject === 'Renamed by a member'),
    'Alice sees the allowed subject',
  )
  assert.deepEqual(
    alice.groupUpdates.filter(
      (u) => u.id === theirs && (u.subject === 'Mine now' || u.announce !== undefined),
    ),
    [],
    'Alice heard nothing of the refused change',
  )
  await groupEventOf(theirs, 'group.updated', (data) => data.changes.subject === 'Renamed by a member')
  assert.ok(
    !linked.events.seen.some(
      (event) =>
        event.event === 'group.updated' &&
        (event.data as any).group_id === theirs &&
        (event.data as any).changes.subject === 'Mine now',
    ),
    'no group.updated for the refused change',
  )
})

test('where only admins send, the app’s send as a non-admin is refused: 403 not_group_admin, message.status failed, no member gets it', async () => {
  const theirs = await bobsGroup('Bob’s announcements')
  await linked.control.changeGroup(BOB, theirs, { action: 'announce', on: true })
  await groupEventOf(theirs, 'group.updated', (data) => data.changes.only_admins_send === true)
  const refused = await linked.api('send_message', { number: theirs, type: 'text', message: 'may I?' })
  assert.equal(refused.status, 403, JSON.stringify(refused.body))
  assert.equal(refused.body.code, 'not_group_admin')
  assert.equal(refused.body.details.network_error, '403')
  const failed = await linked.events.waitFor(
    (event) =>
      event.event === 'message.status' &&
      (event.data as any).chat === theirs &&
      (event.data as any).status === 'failed',
    'message.status failed',
  )
  assert.equal((failed.data as any).error_code, '403')
  // Bob, an admin, writes after: his message reaches Alice's phone; the refused one, sent before, never did.
  const { id } = await linked.control.send(BOB, { to: theirs, text: 'only I speak here' })
  await inboxEntry(linked.core.sandbox!, ALICE, id)
  assert.ok(!linked.control.inbox(ALICE).some((entry) => entry.id === (failed.data as any).id))
  assert.ok(!linked.control.inbox(ALICE).some((entry) => entry.text === 'may I?'))
})

test('an admin’s change of several fields is applied whole: the network and the members have each', async () => {
  const body = await ok('update_group', {
    group_id: groupId,
    subject: 'Acme (all)',
    description: 'Everything at once',
    only_admins_send: true,
  })
  assert.deepEqual(body, {
    status: 'success',
    group_id: groupId,
    changed: ['subject', 'description', 'only_admins_send'],
  })
  const group = linked.control.group(groupId)
  assert.equal(group.subject, 'Acme (all)')
  assert.equal(group.description, 'Everything at once')
  assert.equal(group.announce, true)
  await alice.waitFor(
    () => alice.groupUpdates.find((u) => u.id === groupId && u.announce === true),
    'Alice sees only admins send',
  )
  assert.ok(alice.groupUpdates.some((u) => u.id === groupId && u.subject === 'Acme (all)'))
})

test('rights lost midway: the answer says per field what was applied, and the network has exactly that', async () => {
  const theirs = await bobsGroup('Bob’s desk')
  await linked.control.changeGroup(BOB, theirs, { action: 'promote', participants: [ME] })
  // Bob demotes this account the moment its subject change is made, before it hears the answer.
  const demote = ({ group, phone, change }: { group: string; phone: string; change: string }) => {
    if (group !== theirs || phone !== ME || change !== 'subject') return
    linked.control.events.off('group', demote)
    void linked.control.changeGroup(BOB, theirs, { action: 'demote', participants: [ME] })
  }
  linked.control.events.on('group', demote)
  const answer = await linked.api('update_group', {
    group_id: theirs,
    subject: 'Half done',
    description: 'Members may write this',
    only_admins_edit: true,
  })
  assert.equal(answer.status, 409, JSON.stringify(answer.body))
  assert.equal(answer.body.code, 'group_change_incomplete')
  assert.match(answer.body.message, /only_admins_edit/)
  assert.deepEqual(answer.body.details.changed, ['subject', 'description'])
  assert.deepEqual(
    answer.body.details.results.map((r: any) => [r.field, r.result, r.code]),
    [
      ['subject', 'applied', undefined],
      ['description', 'applied', undefined],
      ['only_admins_edit', 'refused', 'not_group_admin'],
    ],
  )
  const group = linked.control.group(theirs)
  assert.equal(group.subject, 'Half done')
  assert.equal(group.description, 'Members may write this')
  assert.equal(group.restrict, false, 'the setting was not changed')
})

test('a picture that cannot be read refuses the whole change before anything is sent', async () => {
  const png = await sharp({ create: { width: 64, height: 64, channels: 3, background: '#c03060' } })
    .png()
    .toBuffer()
  const broken = png.subarray(0, 40)
  const before = linked.control.group(groupId)
  const answer = await linked.api('update_group', {
    group_id: groupId,
    subject: 'Never set',
    media_base64: broken.toString('base64'),
  })
  assert.equal(answer.status, 422, JSON.stringify(answer.body))
  assert.equal(answer.body.code, 'media_unavailable')
  assert.deepEqual(linked.control.group(groupId), before, 'the group is as it was')
})

test('create_group with a number not on the network names it and makes no group', async () => {
  const before = (await ok('groups', {})).groups.length
  const answer = await linked.api('create_group', { subject: 'Never made', participants: [ALICE, NOBODY] })
  assert.equal(answer.status, 422, JSON.stringify(answer.body))
  assert.equal(answer.body.code, 'participant_not_found')
  assert.deepEqual(answer.body.details.numbers, [NOBODY])
  assert.match(answer.body.message, new RegExp(NOBODY))
  const after = (await ok('groups', {})).groups
  assert.equal(after.length, before, 'the network has no new group of this account')
  assert.ok(!after.some((g: any) => g.subject === 'Never made'))
  assert.ok(!alice.groups.some((g) => g.subject === 'Never made'), 'Alice was told of no group')
})

test('create_group with a member whose privacy refuses adds: the group is made without them, and the answer says so with the invitation', async () => {
  const answer = await ok('create_group', { subject: 'Without Carol', participants: [ALICE, CAROL] })
  const id = answer.group.id
  assert.deepEqual(roles(id), { [ME]: 'superadmin', [ALICE]: null }, 'the network left Carol out')
  assert.deepEqual(answer.group.participants.map((p: any) => p.phone).sort(), [ME, ALICE].sort())
  assert.equal(answer.not_added.length, 1, JSON.stringify(answer))
  const [carol] = answer.not_added
  assert.equal(carol.participant, CAROL)
  assert.equal(carol.result, 'invite_required')
  assert.equal(carol.invite.link, `https://chat.whatsapp.com/${carol.invite.code}`)
  assert.equal(carol.invite.message_id, null)
  await linked.control.joinGroup(CAROL, carol.invite.code)
  assert.equal(roles(id)[CAROL], null, 'Carol joins with the invitation the network made')
  const plain = await ok('create_group', { subject: 'Only Alice', participants: [ALICE] })
  assert.deepEqual(Object.keys(plain), ['status', 'group'], 'a group made whole answers as before')
})
