import assert from 'node:assert/strict'
import { rmSync } from 'node:fs'
import { test } from 'node:test'
import { ok, startCore, tempDataDir } from '../testing/instance-harness'
import { InstanceViewSchema } from '../instances/instance-view'
import { linkedInstance, recordEvents } from '../testing/messaging-harness'
import { schemaViolations } from '../schema'
import { contractViolations, EVENT_CATALOGUE, EVENT_NAMES } from './event-catalogue'

test('every sample payload of the catalogue has its event’s shape', () => {
  for (const name of EVENT_NAMES)
    assert.deepEqual(contractViolations(name, EVENT_CATALOGUE[name].example), [], name)
})

test('a payload that departs from the catalogue is named with the field at fault', () => {
  assert.deepEqual(contractViolations('instance.created', { created_at: 1795253914, replaces: null }), [])
  const violations = contractViolations('connection.update', {
    state: 'linked',
    previous_state: 'qr',
    reason: null,
  })
  assert.ok(violations.length > 0)
  assert.ok(violations.every((violation) => violation.startsWith('/state')))
  assert.ok(contractViolations('instance.updated', { changed: [] }).length > 0, 'something changed')
})

test('a real instance’s events (link, receive, archive, send, status, react, edit, delete, presence, poll, call, group, clear and delete a chat, destroy) and its view have their contract shape', async (t) => {
  const dataDir = tempDataDir()
  const core = await startCore({ dataDir, sandbox: true, limits: { sendIntervalMs: 0, sendJitterMs: 0 } })
  t.after(async () => {
    await core.close()
    rmSync(dataDir, { recursive: true, force: true })
  })
  const events = recordEvents(core)
  await core.sandbox!.control.addAccount({ phone: '15550400002', name: 'Alice' })
  // A Business account, so its labels' events come too.
  await core.sandbox!.control.addAccount({ phone: '15550400001', business: true })
  const id = await linkedInstance(core, '15550400001')
  const { instances } = await ok(core.apiBase, 'instances')
  const { instance } = await ok(core.apiBase, 'instance', { instance_id: id })
  for (const view of [...instances, instance])
    assert.deepEqual(schemaViolations(InstanceViewSchema, view), [])
  await core.sandbox!.control.send('15550400002', { to: '15550400001', text: 'Hi' })
  await events.waitFor((event) => event.event === 'message.received', 'message.received')
  await ok(core.apiBase, 'archive_chat', { instance_id: id, number: '15550400002' })
  const sent = await ok(core.apiBase, 'send_message', {
    instance_id: id,
    number: '15550400002',
    type: 'text',
    message: 'Hello',
  })
  await events.waitFor((event) => event.event === 'message.status', 'message.status')
  const target = { instance_id: id, message_id: sent.message.key.id }
  await ok(core.apiBase, 'star_message', target)
  const label = await ok(core.apiBase, 'create_label', { instance_id: id, name: 'Paid' })
  await ok(core.apiBase, 'label_chat', { instance_id: id, number: '15550400002', label_id: label.id })
  await ok(core.apiBase, 'label_message', { ...target, label_id: label.id })
  await ok(core.apiBase, 'react', { ...target, emoji: '👍' })
  await ok(core.apiBase, 'edit_message', { ...target, message: 'Hello!' })
  await ok(core.apiBase, 'delete_message', target)
  await ok(core.apiBase, 'subscribe_presence', { instance_id: id, number: '15550400002' })
  core.sandbox!.control.showPresence('15550400002', { state: 'available' })
  await events.waitFor((event) => event.event === 'presence.update', 'presence.update')
  const poll = await ok(core.apiBase, 'send_poll', {
    instance_id: id,
    number: '15550400002',
    question: 'Lunch?',
    options: ['Yes', 'No'],
  })
  await events.waitFor((event) => event.event === 'message.status', 'poll status')
  await core.sandbox!.control.send('15550400002', {
    to: '15550400001',
    vote: { id: poll.message.key.id, options: ['Yes'] },
  })
  await events.waitFor((event) => event.event === 'poll.vote', 'poll.vote')
  core.sandbox!.control.call('15550400002', { to: '15550400001' })
  await events.waitFor((event) => event.event === 'call.received', 'call.received')
  await ok(core.apiBase, 'post_status', {
    instance_id: id,
    type: 'text',
    message: 'Open today',
    numbers: ['15550400002'],
  })
  await ok(core.apiBase, 'update_instance', { instance_id: id, ignore_status: false })
  await core.sandbox!.control.send('15550400002', { to: 'status@broadcast', text: 'Away' })
  await events.waitFor((event) => event.event === 'status.received', 'status.received')
  const { group } = await ok(core.apiBase, 'create_group', {
    instance_id: id,
    subject: 'Team',
    participants: ['15550400002'],
  })
  await core.sandbox!.control.changeGroup('15550400001', group.id, { action: 'subject', subject: 'Team!' })
  await core.sandbox!.control.changeGroup('15550400001', group.id, {
    action: 'promote',
    participants: ['15550400002'],
  })
  await events.waitFor((event) => event.event === 'group.updated', 'group.updated')
  await events.waitFor((event) => event.event === 'group.participants', 'group.participants')
  const channel = await core.sandbox!.control.channels.create('15550400002', { name: 'Alice news' })
  await ok(core.apiBase, 'follow_channel', { instance_id: id, channel: channel.invite })
  await core.sandbox!.control.channels.post('15550400002', channel.id, 'Good morning')
  await events.waitFor((event) => event.event === 'channel.post', 'channel.post')
  const { community } = await ok(core.apiBase, 'create_community', { instance_id: id, subject: 'Neighbours' })
  const link = { instance_id: id, community_id: community.id, group_id: group.id }
  await ok(core.apiBase, 'link_group', link)
  await events.waitFor((event) => event.event === 'community.linked', 'community.linked')
  await ok(core.apiBase, 'unlink_group', link)
  await events.waitFor((event) => event.event === 'community.unlinked', 'community.unlinked')
  await ok(core.apiBase, 'clear_chat', { instance_id: id, number: '15550400002' })
  const { id: again } = await core.sandbox!.control.send('15550400002', { to: '15550400001', text: 'Still?' })
  await events.waitFor(
    (event) => event.event === 'message.received' && event.data.id === again,
    'a new message',
  )
  await ok(core.apiBase, 'delete_chat', { instance_id: id, number: '15550400002' })
  await ok(core.apiBase, 'set_webhook', {
    instance_id: id,
    webhook_url: 'http://127.0.0.1:9/',
    enable: 'false',
  })
  await ok(core.apiBase, 'destroy', { instance_id: id })
  // Durable when destroy answers; on a shared store on the live stream once read back from the log.
  await core.events.published()

  const seen = new Set(events.seen.map((event) => event.event))
  for (const name of EVENT_NAMES.filter((name) => name !== 'webhook.test' && name !== 'instance.logged_out'))
    assert.ok(seen.has(name), `${name} was produced`)
  for (const event of events.seen)
    assert.deepEqual(
      contractViolations(event.event, event.data),
      [],
      `${event.event} ${JSON.stringify(event.data)}`,
    )
})
