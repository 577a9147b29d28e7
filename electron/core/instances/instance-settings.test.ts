import assert from 'node:assert/strict'
import { test } from 'node:test'
import { ok } from '../testing/instance-harness'
import { linkedCoreFixture } from '../testing/linked-core'
import { eventually } from '../testing/messaging-harness'

const ME = '15550470001'
const ALICE = '15550470002'
const BOB = '15550470003'

const linked = linkedCoreFixture(ME, [
  { phone: ALICE, name: 'Alice' },
  { phone: BOB, name: 'Bob' },
])
const control = () => linked.control
const update = (params: Record<string, unknown>) => linked.api('update_instance', params)
const view = async (id = linked.instanceId) =>
  (await ok(linked.core.apiBase, 'instance', { instance_id: id })).instance

test('a name is given at creation and changed later, announced, and bad names change nothing', async () => {
  const created = await ok(linked.core.apiBase, 'create_instance', { name: '  Sales  ' })
  assert.equal((await view(created.instance_id)).name, 'Sales')
  const listed = (await ok(linked.core.apiBase, 'instances')).instances
  assert.ok(listed.some((instance: { name: string | null }) => instance.name === 'Sales'))
  const renamed = await update({ name: 'Front desk' })
  assert.equal(renamed.status, 200, JSON.stringify(renamed.body))
  assert.equal(renamed.body.instance.name, 'Front desk')
  await linked.events.waitFor(
    (event) => event.event === 'instance.updated' && (event.data.changed as string[]).includes('name'),
    'instance.updated',
  )
  for (const [params, code] of [
    [{ name: 'bell\u0007' }, 'invalid_parameter'],
    [{ name: 'x'.repeat(101) }, 'invalid_parameter'],
    [{}, 'missing_parameter'],
    [{ auto_read: 'sometimes' }, 'invalid_parameter'],
  ] as const) {
    const refused = await update(params)
    assert.equal(refused.status, 400, JSON.stringify([params, refused.body]))
    assert.equal(refused.body.code, code)
  }
  assert.equal((await view()).name, 'Front desk')
  assert.deepEqual((await view()).behaviours, {
    ignore_groups: false,
    auto_read: false,
    always_online: false,
    ignore_status: true,
  })
})

test('auto_read marks each incoming message read on the contact’s side', async () => {
  await ok(linked.core.apiBase, 'update_instance', { instance_id: linked.instanceId, auto_read: true })
  const { id } = await control().send(ALICE, { to: ME, text: 'Did you read this?' })
  await eventually(
    () => control().reads(ALICE),
    (ids) => ids.includes(id),
    'read automatically',
  )
  await ok(linked.core.apiBase, 'update_instance', { instance_id: linked.instanceId, auto_read: false })
  const { id: unread } = await control().send(ALICE, { to: ME, text: 'And this one?' })
  await linked.events.waitFor(
    (event) => event.event === 'message.received' && event.data.id === unread,
    'received',
  )
  await new Promise((resolve) => setTimeout(resolve, 300))
  assert.ok(!control().reads(ALICE).includes(unread), 'not read once auto_read is off')
})

test('ignore_groups surfaces nothing from groups while 1:1 chats still arrive', async () => {
  const { groupId } = await control().createGroup({ subject: 'Noise', participants: [ALICE, BOB, ME] })
  await ok(linked.core.apiBase, 'update_instance', { instance_id: linked.instanceId, ignore_groups: true })
  const group = await control().send(ALICE, { to: groupId, text: 'group chatter' })
  const direct = await control().send(ALICE, { to: ME, text: 'just for you' })
  await linked.events.waitFor(
    (event) => event.event === 'message.received' && event.data.id === direct.id,
    '1:1',
  )
  await new Promise((resolve) => setTimeout(resolve, 300))
  assert.ok(
    !linked.events.seen.some((event) => event.data.id === group.id),
    'the group message is not surfaced',
  )
  await ok(linked.core.apiBase, 'update_instance', { instance_id: linked.instanceId, ignore_groups: false })
  const later = await control().send(ALICE, { to: groupId, text: 'heard again' })
  await linked.events.waitFor(
    (event) => event.event === 'message.received' && event.data.id === later.id,
    'group',
  )
})

test('always_online shows the account online now and after every reconnect', async () => {
  await ok(linked.core.apiBase, 'update_instance', { instance_id: linked.instanceId, always_online: true })
  await eventually(
    () => control().presence(ME).online,
    (online) => online === true,
    'online',
  )
  await ok(linked.core.apiBase, 'send_presence', { instance_id: linked.instanceId, presence: 'offline' })
  await eventually(
    () => control().presence(ME).online,
    (online) => online === false,
    'offline by hand',
  )
  await control().drop(ME, 'close')
  await eventually(
    () => control().presence(ME).online,
    (online) => online === true,
    'online after reconnect',
  )
  await ok(linked.core.apiBase, 'update_instance', { instance_id: linked.instanceId, always_online: false })
  await eventually(
    () => control().presence(ME).online,
    (online) => online === false,
    'offline when turned off',
  )
})

test('status updates are ignored by default, and arrive as status.received in status@broadcast once asked for', async () => {
  assert.equal((await view()).behaviours.ignore_status, true, 'on by default')
  const unheard = await control().send(BOB, { to: 'status@broadcast', text: 'Out of office today' })
  const direct = await control().send(BOB, { to: ME, text: 'after my status' })
  await linked.events.waitFor(
    (event) => event.event === 'message.received' && event.data.id === direct.id,
    'the 1:1 message',
  )
  assert.ok(!linked.events.seen.some((event) => event.data.id === unheard.id), 'the status is not surfaced')
  assert.ok(
    control()
      .inbox(ALICE)
      .some((entry) => entry.id === unheard.id && entry.chat === 'status@broadcast'),
    'the network did send it: Alice’s phone got it',
  )
  await ok(linked.core.apiBase, 'update_instance', { instance_id: linked.instanceId, ignore_status: false })
  const heard = await control().send(BOB, { to: 'status@broadcast', text: 'Back tomorrow' })
  const event = await linked.events.waitFor(
    (candidate) => candidate.event === 'status.received' && candidate.data.id === heard.id,
    'the status update',
  )
  assert.equal(event.data.chat, 'status@broadcast')
  assert.equal(event.data.text, 'Back tomorrow')
  assert.equal(event.data.sender_phone, BOB)
})

test('the name and behaviours survive a restart', async () => {
  await ok(linked.core.apiBase, 'update_instance', {
    instance_id: linked.instanceId,
    ignore_groups: true,
    auto_read: true,
  })
  await linked.restart()
  const restored = await view()
  assert.equal(restored.name, 'Front desk')
  assert.deepEqual(restored.behaviours, {
    ignore_groups: true,
    auto_read: true,
    always_online: false,
    ignore_status: false,
  })
})
