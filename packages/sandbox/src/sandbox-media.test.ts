import assert from 'node:assert/strict'
import { createHash, randomBytes } from 'node:crypto'
import { test } from 'node:test'
import { inboxEntry, linkedDeviceFixture } from './testing/sandbox-fixture'
import { solidPng } from './testing/solid-png'

const ME = '15550001111'
const ALICE = '15551230001'

const fixture = linkedDeviceFixture(ME, [{ phone: ALICE, name: 'Alice' }])

const sha256 = (data: Buffer): string => createHash('sha256').update(data).digest('hex')

const redSquare = (): Buffer => solidPng(32, 32, [220, 30, 30])

test('a document the device sends is uploaded over HTTPS and reaches the contact byte-identical', async () => {
  assert.ok(fixture.device.sock)
  const bytes = randomBytes(50_000)
  const sent = await fixture.device.sock.sendMessage(`${ALICE}@s.whatsapp.net`, {
    document: bytes,
    mimetype: 'application/pdf',
    fileName: 'report.pdf',
  })
  const entry = await inboxEntry(fixture.sandbox, ALICE, sent?.key.id ?? '')
  assert.equal(entry.type, 'document')
  assert.equal(entry.filename, 'report.pdf')
  assert.equal(entry.mimetype, 'application/pdf')
  assert.equal(entry.size, bytes.length)
  assert.equal(entry.sha256, sha256(bytes))
})

test('an image with a caption the device sends reaches the contact byte-identical', async () => {
  assert.ok(fixture.device.sock)
  const image = redSquare()
  const sent = await fixture.device.sock.sendMessage(`${ALICE}@s.whatsapp.net`, {
    image,
    caption: 'red square',
  })
  const entry = await inboxEntry(fixture.sandbox, ALICE, sent?.key.id ?? '')
  assert.equal(entry.type, 'image')
  assert.equal(entry.caption, 'red square')
  assert.equal(entry.sha256, sha256(image))
})

test('a document a contact sends downloads on the device byte-identical', async () => {
  const bytes = randomBytes(20_000)
  const { id } = await fixture.sandbox.control.send(ALICE, {
    to: ME,
    media: { data: bytes, mimetype: 'text/plain', filename: 'notes.txt' },
  })
  const received = await fixture.device.waitForMessage(id)
  assert.equal(received.message?.documentMessage?.fileName, 'notes.txt')
  assert.equal(sha256(await fixture.device.download(received)), sha256(bytes))
})

test('an image with a caption a contact sends downloads on the device byte-identical', async () => {
  const image = redSquare()
  const { id } = await fixture.sandbox.control.send(ALICE, {
    to: ME,
    media: { data: image, mimetype: 'image/png', caption: 'from alice' },
  })
  const received = await fixture.device.waitForMessage(id)
  assert.equal(received.message?.imageMessage?.caption, 'from alice')
  assert.equal(sha256(await fixture.device.download(received)), sha256(image))
})
