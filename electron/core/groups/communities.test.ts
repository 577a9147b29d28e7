import assert from 'node:assert/strict'
import { after, test } from 'node:test'
import type { LinkdeskEvent } from '../contract/events'
import { linkedCoreFixture } from '../testing/linked-core'
import { linkedClient, type SandboxClient } from '@linkdesk/sandbox/testing'

const ME = '15550620001'
const ALICE = '15550620002'
const BOB = '15550620003'

const linked = linkedCoreFixture(ME, [
  { phone: ALICE, name: 'Alice' },
  { phone: BOB, name: 'Bob' },
])

/** Alice's linked device: what another member of the community sees, through the real Baileys. */
let alice: SandboxClient
let communityId: string
let announcementId: string
let groupId: string

after(() => alice?.stop())

async function ok(operation: string, params: Record<string, unknown>) {
  const answer = await linked.api(operation, params)
  assert.equal(answer.status, 200, `${operation}: ${JSON.stringify(answer.body)}`)
  return answer.body
}

async function refused(operation: string, params: Record<string, unknown>, status: number, code: string) {
  const answer = await linked.api(operation, params)
  assert.equal(answer.status, status, `${operation}: ${JSON.stringify(answer.body)}`)
  assert.equal(answer.body.code, code, JSON.stringify(answer.body))
}

function eventOf(name: string, match: (data: any) => boolean): Promise<LinkdeskEvent> {
  return linked.events.waitFor((event) => event.event === name && match(event.data), name)
}

const phonesOf = (id: string) =>
  linked.control
    .group(id)
    .members.map((member) => member.phone)
    .sort()

test('a community made through the API exists on the network with its announcement group, and a member’s device sees both', async () => {
  alice = await linkedClient(linked.core.sandbox!, ALICE)
  const created = await ok('create_community', {
    subject: 'Acme customers',
    description: 'Everything Acme',
    participants: [ALICE],
  })
  communityId = created.community.id
  announcementId = created.community.announcement_group
  assert.equal(created.community.is_admin, true)
  assert.deepEqual(
    created.community.groups.map((g: any) => [g.id, g.is_announcement]),
    [[announcementId, true]],
  )

  const community = linked.control.group(communityId)
  assert.equal(community.community, true)
  assert.equal(community.description, 'Everything Acme')
  assert.deepEqual(community.linkedGroups, [announcementId])
  const announcement = linked.control.group(announcementId)
  assert.equal(announcement.announcementGroup, true)
  assert.equal(announcement.linkedParent, communityId)
  assert.equal(announcement.announce, true, 'only admins send in the announcement group')
  assert.deepEqual(phonesOf(announcementId), [ME, ALICE].sort())

  const seen = await alice.waitFor(
    () => alice.groups.find((group) => group.id === communityId),
    'Alice told of the community',
  )
  assert.equal(seen.isCommunity, true)
  const seenAnnouncement = await alice.waitFor(
    () => alice.groups.find((group) => group.id === announcementId),
    'Alice told of the announcement group',
  )
  assert.equal(seenAnnouncement.isCommunityAnnounce, true)
  assert.equal(seenAnnouncement.linkedParent, communityId)

  const joined = await eventOf('group.joined', (data) => data.group.id === communityId)
  assert.equal((joined.data as any).group.is_community, true)
  await eventOf('group.joined', (data) => data.group.id === announcementId && data.group.is_announcement)

  const listed = await ok('communities', {})
  const mine = listed.communities.find((c: any) => c.id === communityId)
  assert.equal(mine.announcement_group, announcementId)
  const read = await ok('community', { community_id: communityId })
  assert.deepEqual(read.community.participants.map((p: any) => p.phone).sort(), [ME, ALICE].sort())
})

test('an announcement sent to the community’s announcement group reaches its members', async () => {
  const sent = await ok('send_message', { number: announcementId, type: 'text', message: 'Closed on Monday' })
  const received = await alice.waitFor(
    () =>
      alice.upserts.find(
        ({ message }) => message.key.remoteJid === announcementId && message.key.id === sent.message.key.id,
      ),
    'Alice receives the announcement',
  )
  assert.equal(
    received.message.message?.conversation ?? received.message.message?.extendedTextMessage?.text,
    'Closed on Monday',
  )
})

test('a linked group shows its parent to its members, who join the community; unlinking undoes the link', async () => {
  const made = await ok('create_group', { subject: 'Acme orders', participants: [ALICE, BOB] })
  groupId = made.group.id
  assert.equal(made.group.community_id, null)

  const answer = await ok('link_group', { community_id: communityId, group_id: groupId })
  assert.deepEqual([answer.community_id, answer.group_id], [communityId, groupId])
  assert.equal(linked.control.group(groupId).linkedParent, communityId)
  assert.deepEqual(phonesOf(communityId), [ME, ALICE, BOB].sort(), 'Bob joined the community')
  assert.deepEqual(phonesOf(announcementId), [ME, ALICE, BOB].sort(), 'and its announcement group')

  const metadata = await alice.sock!.groupMetadata(groupId)
  assert.equal(metadata.linkedParent, communityId, 'Alice sees the group’s parent')
  const fromAlice = await alice.sock!.communityFetchLinkedGroups(communityId)
  assert.deepEqual(fromAlice.linkedGroups.map((group) => group.id).sort(), [announcementId, groupId].sort())

  const event = await eventOf('community.linked', (data) => data.group_id === groupId)
  assert.equal((event.data as any).community_id, communityId)
  assert.equal((event.data as any).by.is_me, true)
  const read = await ok('group', { group_id: groupId })
  assert.equal(read.group.community_id, communityId)
  const listed = await ok('community', { community_id: communityId })
  assert.ok(listed.community.groups.some((g: any) => g.id === groupId && g.is_member))

  await ok('unlink_group', { community_id: communityId, group_id: groupId })
  assert.equal(linked.control.group(groupId).linkedParent, null)
  assert.deepEqual(phonesOf(communityId), [ME, ALICE, BOB].sort(), 'members stay in the community')
  await eventOf('community.unlinked', (data) => data.group_id === groupId)
  assert.equal((await alice.sock!.groupMetadata(groupId)).linkedParent, undefined)
})

test('bad links are refused with their own codes and change nothing on the network', async () => {
  await ok('link_group', { community_id: communityId, group_id: groupId })
  const before = linked.control.group(communityId).linkedGroups

  await refused('link_group', { community_id: communityId, group_id: groupId }, 409, 'group_already_linked')
  await refused('link_group', { community_id: groupId, group_id: groupId }, 404, 'community_not_found')
  await refused(
    'link_group',
    { community_id: '120363000000000000001@g.us', group_id: groupId },
    404,
    'community_not_found',
  )
  // Alice made this group: this account is a member, not an admin of it.
  const { groupId: alicesGroup } = await linked.control.createGroup({
    subject: 'Alice’s',
    participants: [ALICE, ME],
  })
  await refused('link_group', { community_id: communityId, group_id: alicesGroup }, 403, 'not_group_admin')
  assert.equal(linked.control.group(alicesGroup).linkedParent, null)
  await refused('unlink_group', { community_id: communityId, group_id: alicesGroup }, 409, 'group_not_linked')
  await refused(
    'unlink_group',
    { community_id: communityId, group_id: announcementId },
    400,
    'invalid_parameter',
  )
  await refused('link_group', { community_id: 'not-a-group', group_id: groupId }, 400, 'invalid_parameter')
  assert.deepEqual(linked.control.group(communityId).linkedGroups, before)
  assert.equal(linked.control.group(announcementId).linkedParent, communityId)

  // A member who is not an admin asks the network itself: it refuses, and nothing changes either.
  await assert.rejects(alice.sock!.communityUnlinkGroup(groupId, communityId))
  assert.equal(linked.control.group(groupId).linkedParent, communityId)
  // What the sandbox does not implement of communities is an error, never an empty success.
  await assert.rejects(alice.sock!.communityRequestParticipantsList(communityId))
})
