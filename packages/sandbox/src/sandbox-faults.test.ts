import assert from 'node:assert/strict'
import { test } from 'node:test'
import { linkedDeviceFixture } from './testing/sandbox-fixture'

const ME = '15550001111'
const CONTACT = '15551230001'

const fixture = linkedDeviceFixture(ME, [{ phone: CONTACT, name: 'Contact' }])

test('a query the network does not implement is answered with an error, never an empty success', async () => {
  const sock = fixture.device.sock
  assert.ok(sock)
  await assert.rejects(
    sock.query({
      tag: 'iq',
      attrs: { to: 's.whatsapp.net', type: 'get', xmlns: 'w:no-such-feature' },
      content: [{ tag: 'anything', attrs: {} }],
    }),
    // Baileys turns an <error> answer into a Boom carrying its code as data.
    (error: { data?: unknown; message?: string }) => {
      assert.equal(error.data, 501)
      assert.match(String(error.message), /feature-not-implemented/)
      return true
    },
  )
})

test('a closed socket is seen as connection closed (428), and the device logs back in', async () => {
  const closes = fixture.device.closes.length
  const opens = fixture.device.opens
  await fixture.sandbox.control.drop(ME, 'close')
  assert.equal((await fixture.device.waitForClose(closes + 1)).code, 428)
  await fixture.device.waitForOpen(opens + 1)
})

test('messages a contact sends while the device is away wait for its next login', async () => {
  const closes = fixture.device.closes.length
  const opens = fixture.device.opens
  fixture.device.sock?.end(undefined)
  await fixture.device.waitForClose(closes + 1)
  const { id } = await fixture.sandbox.control.send(CONTACT, { to: ME, text: 'while you were away' })
  await fixture.device.waitForOpen(opens + 1)
  const received = await fixture.device.waitForMessage(id)
  assert.equal(received.message?.conversation, 'while you were away')
})

test('an injected login failure closes the next login with that code', async () => {
  fixture.sandbox.control.failNextLogin(ME, 503)
  const closes = fixture.device.closes.length
  await fixture.sandbox.control.drop(ME, 'close')
  await fixture.device.waitForClose(closes + 1)
  assert.equal((await fixture.device.waitForClose(closes + 2)).code, 503)
  await fixture.device.waitForOpen()
})

test('unlinking from the phone closes the device with 401 and it cannot log in again', async () => {
  await fixture.device.waitForOpen(fixture.device.opens)
  const closes = fixture.device.closes.length
  await fixture.sandbox.control.unlink(ME)
  const closed = await fixture.device.waitForClose(closes + 1)
  assert.equal(closed.code, 401)
  assert.deepEqual(fixture.sandbox.control.accounts().find((a) => a.phone === ME)?.linkedDevices, [])
  fixture.device.start()
  assert.equal(
    (await fixture.device.waitForClose(closes + 2)).code,
    401,
    'a removed device is refused at login',
  )
})
