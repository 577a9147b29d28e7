import assert from 'node:assert/strict'
import { test } from 'node:test'
import type { BinaryNode } from '@whiskeysockets/baileys'
import { DeviceMailbox, MAILBOX_LIMIT } from './accounts/device-mailbox'
import { node } from './stanzas/binary-node'
import { memoryState } from './state/sandbox-state'
import { StoredList } from './state/stored-list'
import { linkedDeviceFixture } from './testing/sandbox-fixture'

const ME = '15550002222'
const ALICE = '15551230011'

const fixture = linkedDeviceFixture(ME, [{ phone: ALICE, name: 'Alice' }])

test('a message the device never receipted is written again, marked offline, at its next login', async () => {
  const sock = fixture.device.sock
  assert.ok(sock)
  // The device dies as the message arrives: it can no longer receipt it, and its key writes since then are
  // lost, so the copy written again at login decrypts as the first one did.
  sock.ws.prependListener('CB:message', (stanza: BinaryNode) => {
    if (!stanza.attrs.from?.startsWith(ALICE)) return
    const restore = fixture.device.auth.restorePoint()
    void sock.ws.close()
    sock.ev.on('connection.update', ({ connection }) => connection === 'close' && restore())
  })
  const login = fixture.sandbox.control.events.waitFor('login', (event) => event.phone === ME)
  const { id } = await fixture.sandbox.control.send(ALICE, { to: ME, text: 'kept until receipted' })
  assert.deepEqual((await login).redelivered, [id])
  await fixture.sandbox.control.events.waitFor(
    'receipt',
    (event) => event.phone === ME && event.type !== 'retry' && event.ids.includes(id),
  )
  const received = await fixture.device.waitForMessage(id)
  assert.equal(received.message?.conversation, 'kept until receipted')
  const upserts = fixture.device.upserts.filter((upsert) => upsert.message.key.id === id)
  assert.deepEqual(
    upserts.map((upsert) => upsert.type),
    ['append'],
    'delivered once, as an offline message',
  )

  // Receipted now: the next login owes it nothing.
  const next = fixture.sandbox.control.events.waitFor('login', (event) => event.phone === ME)
  void fixture.device.sock?.ws.close()
  assert.deepEqual((await next).redelivered, [])
})

test('a mailbox keeps messages until receipted, other stanzas only while unsent, and at most its limit', () => {
  const mailbox = new DeviceMailbox(new StoredList(memoryState(), 'mailbox'))
  const message = (id: string): BinaryNode => node('message', { id })
  mailbox.hold(message('a'), true)
  mailbox.hold(node('receipt', { id: 'r' }), true)
  mailbox.hold(node('notification', { id: 'n' }), false)
  mailbox.hold(message('b'), false)
  assert.deepEqual(
    mailbox.takeForLogin().map((stanza) => stanza.attrs.id),
    ['a', 'n', 'b'],
  )
  mailbox.confirm(['a'])
  assert.deepEqual(
    mailbox.takeForLogin().map((stanza) => stanza.attrs.id),
    ['b'],
  )
  for (let i = 0; i < MAILBOX_LIMIT + 5; i++) mailbox.hold(message(`m${i}`), true)
  assert.equal(mailbox.size, MAILBOX_LIMIT)
  assert.equal(mailbox.takeForLogin()[0]?.attrs.id, 'm5')
})
