import assert from 'node:assert/strict'
import { test } from 'node:test'
import { linkedClient, linkedDeviceFixture } from './testing/sandbox-fixture'

const SHOP = '15550640001'
const ALICE = '15550640002'
const PERSONAL = '15550640003'

const linked = linkedDeviceFixture(SHOP, [
  { phone: SHOP, name: 'Corner Shop', business: true },
  { phone: ALICE, name: 'Alice' },
  { phone: PERSONAL, name: 'Pat' },
])

const chatOf = (phone: string) => `${phone}@s.whatsapp.net`

test('a Business account’s devices are told so when they link; a personal account’s are not', async () => {
  const info = linked.sandbox.control.accounts().find((account) => account.phone === SHOP)
  assert.equal(info?.business, true)
  assert.equal(linked.device.sock?.authState.creds.platform, 'smba')
  const personal = await linkedClient(linked.sandbox, PERSONAL)
  try {
    assert.equal(personal.sock?.authState.creds.platform, 'android')
    assert.equal(linked.sandbox.control.accounts().find((a) => a.phone === PERSONAL)?.business, false)
  } finally {
    await personal.stop()
  }
})

test('labels one device creates and puts on a chat and a message reach the account’s other device and the network', async () => {
  const sock = linked.device.sock
  assert.ok(sock)
  const other = await linkedClient(linked.sandbox, SHOP)
  try {
    await sock.addLabel('', { id: '7', name: 'Paid', color: 3, deleted: false })
    await sock.addChatLabel(chatOf(ALICE), '7')
    await sock.addMessageLabel(chatOf(ALICE), '3EB0AAAA0000000001', '7')
    const state = linked.sandbox.control.appState(SHOP)
    assert.deepEqual(state.labels['7'], { name: 'Paid', color: 3, deleted: false })
    assert.deepEqual(state.labeledChats['7'], [chatOf(ALICE)])
    assert.deepEqual(state.labeledMessages['7'], [`${chatOf(ALICE)}/3EB0AAAA0000000001`])
    await other.waitFor(
      () => other.labelEdits.some((label) => label.id === '7' && label.name === 'Paid' && label.color === 3),
      'the label on the other device',
    )
    await other.waitFor(
      () =>
        other.labelAssociations.some(
          ({ type, association }) =>
            type === 'add' && association.chatId === chatOf(ALICE) && association.labelId === '7',
        ),
      'the chat’s label on the other device',
    )

    await sock.removeChatLabel(chatOf(ALICE), '7')
    assert.deepEqual(linked.sandbox.control.appState(SHOP).labeledChats['7'], [])
    await other.waitFor(
      () => other.labelAssociations.some(({ type }) => type === 'remove'),
      'the label taken off on the other device',
    )
  } finally {
    await other.stop()
  }
})

test('the phone creates a label and labels a chat: its linked devices are told', async () => {
  const device = linked.device
  await linked.sandbox.control.changeLabel(SHOP, { label: '12', name: 'Follow up', color: 5 })
  await linked.sandbox.control.changeLabel(SHOP, { label: '12', chat: ALICE, labeled: true })
  await device.waitFor(
    () => device.labelEdits.some((label) => label.id === '12' && label.name === 'Follow up'),
    'the phone’s label',
  )
  await device.waitFor(
    () =>
      device.labelAssociations.some(
        ({ type, association }) =>
          type === 'add' && association.labelId === '12' && association.chatId === chatOf(ALICE),
      ),
    'the phone’s chat label',
  )
  assert.deepEqual(linked.sandbox.control.appState(SHOP).labeledChats['12'], [chatOf(ALICE)])
})

test('a personal account’s label patch is refused, and its phone has no labels: nothing is kept', async () => {
  const personal = await linkedClient(linked.sandbox, PERSONAL)
  try {
    assert.ok(personal.sock)
    const before = linked.sandbox.control.appState(PERSONAL)
    await assert.rejects(personal.sock.addLabel('', { id: '1', name: 'Nope', color: 0, deleted: false }))
    await assert.rejects(personal.sock.addChatLabel(chatOf(ALICE), '1'))
    await assert.rejects(
      linked.sandbox.control.changeLabel(PERSONAL, { label: '1', name: 'Nope' }),
      (error: { code?: string }) => error.code === 'not_business',
    )
    const after = linked.sandbox.control.appState(PERSONAL)
    assert.deepEqual(after.versions, before.versions)
    assert.deepEqual(after.labels, {})
    assert.deepEqual(after.labeledChats, {})
  } finally {
    await personal.stop()
  }
})
