import assert from 'node:assert/strict'
import { test } from 'node:test'
import { linkedClient } from '@linkdesk/sandbox/testing'
import { call, waitForStatus } from '../testing/instance-harness'
import { linkedCoreFixture } from '../testing/linked-core'
import { linkedInstance } from '../testing/messaging-harness'

const SHOP = '15550830001'
const ALICE = '15550830002'
const PERSONAL = '15550830003'

const linked = linkedCoreFixture(
  SHOP,
  [
    { phone: ALICE, name: 'Alice' },
    { phone: PERSONAL, name: 'Pat' },
  ],
  {},
  (control) => control.addAccount({ phone: SHOP, name: 'Corner Shop', business: true }).then(() => undefined),
)

/** A contact writes to an account; answers the message's id and chat as that account's instance stored them. */
async function received(from: string, to: string, text: string): Promise<{ id: string; chat: string }> {
  const { id } = await linked.control.send(from, { to, text })
  const event = await linked.events.waitFor(
    (e) => e.event === 'message.received' && e.data.id === id,
    `the message ${text}`,
  )
  return { id, chat: String(event.data.chat) }
}

async function labelsOf(chat: string): Promise<unknown> {
  const { status, body } = await linked.api('chats', { number: chat })
  assert.equal(status, 200, JSON.stringify(body))
  return body.chats[0]?.labels
}

test('a label created and put on a chat and a message through the API reaches another linked device and the network, shows in chats and is announced', async () => {
  const { id, chat } = await received(ALICE, SHOP, 'my order')
  const other = await linkedClient(linked.core.sandbox!, SHOP)
  try {
    const created = await linked.api('create_label', { name: 'Paid', color: 4 })
    assert.equal(created.status, 200, JSON.stringify(created.body))
    const label = created.body.id as string
    assert.deepEqual({ ...created.body }, { status: 'success', id: label, name: 'Paid', color: 4 })
    assert.deepEqual(linked.control.appState(SHOP).labels[label], { name: 'Paid', color: 4, deleted: false })

    const onChat = await linked.api('label_chat', { number: ALICE, label_id: label })
    assert.equal(onChat.status, 200, JSON.stringify(onChat.body))
    assert.deepEqual(onChat.body.labels, [{ id: label, name: 'Paid', color: 4 }])
    assert.deepEqual(linked.control.appState(SHOP).labeledChats[label], [chat], 'the network keeps it')
    await other.waitFor(
      () => other.labelEdits.some((edit) => edit.id === label && edit.name === 'Paid' && edit.color === 4),
      'the label on the account’s other device',
    )
    await other.waitFor(
      () =>
        other.labelAssociations.some(
          ({ type, association }) =>
            type === 'add' && association.labelId === label && association.chatId === chat,
        ),
      'the chat’s label on the other device',
    )
    const edited = await linked.events.waitFor(
      (e) => e.event === 'label.updated' && e.data.id === label,
      'label.updated',
    )
    assert.deepEqual(edited.data, { id: label, name: 'Paid', color: 4, deleted: false, source: 'api' })
    const labeled = await linked.events.waitFor(
      (e) => e.event === 'chat.labeled' && e.data.chat === chat,
      'chat.labeled',
    )
    assert.deepEqual(labeled.data, { chat, label_id: label, labeled: true, labels: [label], source: 'api' })
    assert.deepEqual(await labelsOf(chat), [{ id: label, name: 'Paid', color: 4 }])
    // The network's echo of this app's own patch is not announced again as the phone's.
    const announced = linked.events.seen.filter((e) => e.event === 'label.updated' && e.data.id === label)
    assert.deepEqual(
      announced.map((e) => e.data.source),
      ['api'],
    )

    const onMessage = await linked.api('label_message', { message_id: id, label_id: label })
    assert.equal(onMessage.status, 200, JSON.stringify(onMessage.body))
    assert.deepEqual(linked.control.appState(SHOP).labeledMessages[label], [`${chat}/${id}`])
    await other.waitFor(
      () =>
        other.labelAssociations.some(
          ({ association }) => 'messageId' in association && association.messageId === id,
        ),
      'the message’s label on the other device',
    )
    const messageEvent = await linked.events.waitFor(
      (e) => e.event === 'message.labeled' && e.data.id === id,
      'message.labeled',
    )
    assert.equal(messageEvent.data.source, 'api')

    const renamed = await linked.api('edit_label', { label_id: label, name: 'Paid in full' })
    assert.equal(renamed.status, 200, JSON.stringify(renamed.body))
    assert.equal(linked.control.appState(SHOP).labels[label]?.name, 'Paid in full')
    const listed = await linked.api('labels')
    assert.deepEqual(listed.body.labels, [{ id: label, name: 'Paid in full', color: 4 }])

    const off = await linked.api('unlabel_chat', { number: ALICE, label_id: label })
    assert.equal(off.status, 200, JSON.stringify(off.body))
    assert.deepEqual(off.body.labels, [])
    assert.deepEqual(linked.control.appState(SHOP).labeledChats[label], [])
    await other.waitFor(
      () => other.labelAssociations.some(({ type }) => type === 'remove'),
      'the label taken off on the other device',
    )
    assert.deepEqual(await labelsOf(chat), [])

    const deleted = await linked.api('delete_label', { label_id: label })
    assert.equal(deleted.status, 200, JSON.stringify(deleted.body))
    assert.equal(linked.control.appState(SHOP).labels[label]?.deleted, true)
    assert.deepEqual((await linked.api('labels')).body.labels, [])
  } finally {
    await other.stop()
  }
})

test('the phone creating a label and labelling a chat arrives as label.updated and chat.labeled from the phone', async () => {
  const { chat } = await received(ALICE, SHOP, 'label me from the phone')
  await linked.control.changeLabel(SHOP, { label: '40', name: 'VIP', color: 7 })
  await linked.control.changeLabel(SHOP, { label: '40', chat: ALICE, labeled: true })
  const label = await linked.events.waitFor(
    (e) => e.event === 'label.updated' && e.data.id === '40',
    'the phone’s label',
  )
  assert.deepEqual(label.data, { id: '40', name: 'VIP', color: 7, deleted: false, source: 'phone' })
  const labeled = await linked.events.waitFor(
    (e) => e.event === 'chat.labeled' && e.data.label_id === '40',
    'the phone’s chat label',
  )
  assert.deepEqual(labeled.data, { chat, label_id: '40', labeled: true, labels: ['40'], source: 'phone' })
  assert.deepEqual(await labelsOf(chat), [{ id: '40', name: 'VIP', color: 7 }])
})

test('an unknown label, an unknown chat or a colour out of range is refused and nothing reaches the network', async () => {
  await received(ALICE, SHOP, 'so a chat exists')
  const before = linked.control.appState(SHOP)
  const unknown = await linked.api('label_chat', { number: ALICE, label_id: '999' })
  assert.equal(unknown.status, 404, JSON.stringify(unknown.body))
  assert.equal(unknown.body.code, 'label_not_found')
  const noChat = await linked.api('label_chat', { number: '15550839999', label_id: '40' })
  assert.equal(noChat.status, 404, JSON.stringify(noChat.body))
  assert.equal(noChat.body.code, 'chat_not_found')
  const colour = await linked.api('create_label', { name: 'Red', color: 25 })
  assert.equal(colour.status, 400, JSON.stringify(colour.body))
  assert.equal(colour.body.code, 'invalid_parameter')
  const blank = await linked.api('create_label', { name: '   ' })
  assert.equal(blank.status, 400, JSON.stringify(blank.body))
  const after = linked.control.appState(SHOP)
  assert.deepEqual(after.versions, before.versions, 'no patch reached the network')
  assert.deepEqual(after.labels, before.labels)
})

test('a personal account answers not_business to every label operation, and nothing is sent or changed', async () => {
  const personal = await linkedInstance(linked.core, PERSONAL)
  const { id } = await received(ALICE, PERSONAL, 'hello Pat')
  const api = (operation: string, params: Record<string, unknown> = {}) =>
    call(linked.core.apiBase, operation, { instance_id: personal, ...params })
  const before = linked.control.appState(PERSONAL)
  for (const [operation, params] of [
    ['labels', {}],
    ['create_label', { name: 'Paid' }],
    ['edit_label', { label_id: '1', name: 'Paid' }],
    ['delete_label', { label_id: '1' }],
    ['label_chat', { number: ALICE, label_id: '1' }],
    ['unlabel_chat', { number: ALICE, label_id: '1' }],
    ['label_message', { message_id: id, label_id: '1' }],
    ['unlabel_message', { message_id: id, label_id: '1' }],
  ] as const) {
    const answer = await api(operation, params)
    assert.equal(answer.status, 422, `${operation}: ${JSON.stringify(answer.body)}`)
    assert.equal(answer.body.code, 'not_business', operation)
  }
  const after = linked.control.appState(PERSONAL)
  assert.deepEqual(after.versions, before.versions, 'no patch reached the network')
  assert.deepEqual(after.labels, {})
  const chats = await api('chats', { number: ALICE })
  assert.deepEqual(chats.body.chats[0]?.labels, [])
})

test('labels and the chats they are on survive a restart', async () => {
  const before = (await linked.api('labels')).body.labels
  assert.ok(before.some((label: { name: string }) => label.name === 'VIP'))
  const chat = `${ALICE}@s.whatsapp.net`
  const onChat = await labelsOf(chat)
  await linked.restart()
  await waitForStatus(linked.core, linked.instanceId, (s) => s.state === 'connected', 'reconnection')
  assert.deepEqual((await linked.api('labels')).body.labels, before)
  assert.deepEqual(await labelsOf(chat), onChat)
  assert.ok(
    !linked.events.seen.some((e) => e.event === 'label.updated' || e.event === 'chat.labeled'),
    'nothing is announced again after the restart',
  )
})
