import assert from 'node:assert/strict'
import { after, before, test } from 'node:test'
import { proto } from '@whiskeysockets/baileys'
import type { Sandbox } from './index'
import { inboxEntry, linkedClient, startTestSandbox } from './testing/sandbox-fixture'
import type { SandboxClient } from './testing/sandbox-client'

const ME = '15550001111'
const ALICE = '15551230001'
const BOB = '15551230002'
const CAROL = '15551230003'
const { DELIVERY_ACK, READ } = proto.WebMessageInfo.Status

let sandbox: Sandbox
let device: SandboxClient
let lids: Record<string, string>

before(async () => {
  sandbox = await startTestSandbox()
  lids = {}
  for (const [phone, name, autoReply] of [
    [ALICE, 'Alice', 'echo'],
    [BOB, 'Bob', undefined],
    [CAROL, 'Carol', undefined],
  ] as const) {
    lids[phone] = (await sandbox.control.addAccount({ phone, name, autoReply })).lid
  }
  // Alice reads what she gets at once (phones leave messages unread by default).
  await sandbox.control.setBehaviour(ALICE, { reads: 'instantly' })
  device = await linkedClient(sandbox, ME)
})

after(async () => {
  await device.stop()
  await sandbox.close()
})

function sock() {
  assert.ok(device.sock)
  return device.sock
}

function textOf(message: proto.IWebMessageInfo): string | null | undefined {
  return message.message?.conversation ?? message.message?.extendedTextMessage?.text
}

test('a text sent to a contact arrives decrypted in its inbox, then comes back delivered and read', async () => {
  const sent = await sock().sendMessage(`${ALICE}@s.whatsapp.net`, { text: 'hi alice' })
  const id = sent?.key.id ?? ''
  const entry = await inboxEntry(sandbox, ALICE, id)
  assert.equal(entry.type, 'text')
  assert.equal(entry.text, 'hi alice')
  assert.equal(entry.from, ME)
  assert.equal(entry.chat, ME)
  await device.waitForStatus(id, DELIVERY_ACK)
  await device.waitForStatus(id, READ)
})

test('an echo contact answers a text with "echo: <text>" on the session the device opened', async () => {
  await sock().sendMessage(`${ALICE}@s.whatsapp.net`, { text: 'ping' })
  const reply = await device.waitFor(
    () => device.upserts.find((u) => textOf(u.message) === 'echo: ping')?.message,
    'echo reply',
  )
  assert.equal(reply.key.fromMe, false)
  assert.equal(reply.pushName, 'Alice')
})

test('a contact with no session reaches the device by phone number (pkmsg), then again on the same session (msg)', async () => {
  const first = await sandbox.control.send(BOB, { to: ME, text: 'hello from bob' })
  const received = await device.waitForMessage(first.id)
  assert.equal(textOf(received), 'hello from bob')
  assert.equal(received.key.remoteJid, `${BOB}@s.whatsapp.net`)
  assert.equal(received.pushName, 'Bob')
  const second = await sandbox.control.send(BOB, { to: ME, text: 'and again' })
  assert.equal(textOf(await device.waitForMessage(second.id)), 'and again')
})

test('a contact can address the device by LID', async () => {
  const { id } = await sandbox.control.send(CAROL, { to: ME, text: 'lid hello', addressing: 'lid' })
  const received = await device.waitForMessage(id)
  assert.equal(textOf(received), 'lid hello')
  assert.equal(received.key.remoteJid, lids[CAROL])
})

test('a message the device cannot decrypt is sent again after its retry receipt, and arrives', async () => {
  const lidUser = (lids[BOB] ?? '').split('@')[0] ?? ''
  assert.ok(device.auth.deleteSessions(lidUser) > 0, 'the device had a session with Bob')
  const { id } = await sandbox.control.send(BOB, { to: ME, text: 'after a lost session' })
  const healed = await device.waitFor(
    () => device.upserts.find((u) => u.message.key.id === id && textOf(u.message))?.message,
    'the resent message',
  )
  assert.equal(textOf(healed), 'after a lost session')
})

test('a contact that lost its sessions asks for a retry, and the device sends the message again', async () => {
  sandbox.control.forgetSessions(ALICE)
  const sent = await sock().sendMessage(`${ALICE}@s.whatsapp.net`, { text: 'after the contact reinstalled' })
  const entry = await inboxEntry(sandbox, ALICE, sent?.key.id ?? '')
  assert.equal(entry.text, 'after the contact reinstalled')
})

test('the device reads a contact message and the network sees its read receipt', async () => {
  const { id } = await sandbox.control.send(CAROL, { to: ME, text: 'read me' })
  const received = await device.waitForMessage(id)
  const receipt = sandbox.control.events.waitFor('receipt', (r) => r.type === 'read' && r.ids.includes(id))
  await sock().readMessages([received.key])
  assert.equal((await receipt).phone, ME)
})
