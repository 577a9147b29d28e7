import assert from 'node:assert/strict'
import { after, before, test } from 'node:test'
import type { Sandbox } from './index'
import { linkedClient, startTestSandbox } from './testing/sandbox-fixture'
import type { SandboxClient } from './testing/sandbox-client'

const ME = '15550001111'
const CONTACT = '15551230001'

let sandbox: Sandbox
let device: SandboxClient

before(async () => {
  sandbox = await startTestSandbox()
  await sandbox.control.addAccount({ phone: CONTACT, name: 'Contact' })
  device = await linkedClient(sandbox, ME)
})

after(async () => {
  await device.stop()
  await sandbox.close()
})

test('a closed socket is seen as connection closed (428), and the device logs back in', async () => {
  const closes = device.closes.length
  const opens = device.opens
  await sandbox.control.drop(ME, 'close')
  assert.equal((await device.waitForClose(closes + 1)).code, 428)
  await device.waitForOpen(opens + 1)
})

test('messages a contact sends while the device is away wait for its next login', async () => {
  const closes = device.closes.length
  const opens = device.opens
  device.sock?.end(undefined)
  await device.waitForClose(closes + 1)
  const { id } = await sandbox.control.send(CONTACT, { to: ME, text: 'while you were away' })
  await device.waitForOpen(opens + 1)
  const received = await device.waitForMessage(id)
  assert.equal(received.message?.conversation, 'while you were away')
})

test('an injected login failure closes the next login with that code', async () => {
  sandbox.control.failNextLogin(ME, 503)
  const closes = device.closes.length
  await sandbox.control.drop(ME, 'close')
  await device.waitForClose(closes + 1)
  assert.equal((await device.waitForClose(closes + 2)).code, 503)
  await device.waitForOpen()
})

test('unlinking from the phone closes the device with 401 and it cannot log in again', async () => {
  await device.waitForOpen(device.opens)
  const closes = device.closes.length
  await sandbox.control.unlink(ME)
  const closed = await device.waitForClose(closes + 1)
  assert.equal(closed.code, 401)
  assert.deepEqual(sandbox.control.accounts().find((a) => a.phone === ME)?.linkedDevices, [])
  device.start()
  assert.equal((await device.waitForClose(closes + 2)).code, 401, 'a removed device is refused at login')
})
