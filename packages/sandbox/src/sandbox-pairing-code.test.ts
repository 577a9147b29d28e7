import assert from 'node:assert/strict'
import { after, before, test } from 'node:test'
import type { Sandbox } from './index'
import { startTestSandbox } from './testing/sandbox-fixture'
import { SandboxClient } from './testing/sandbox-client'

let sandbox: Sandbox
const clients: SandboxClient[] = []

before(async () => {
  sandbox = await startTestSandbox()
})

after(async () => {
  for (const client of clients) await client.stop()
  await sandbox.close()
})

function client(): SandboxClient {
  const created = new SandboxClient({ endpoint: sandbox.endpoint })
  clients.push(created)
  return created.start()
}

const linkedDevices = (phone: string) =>
  sandbox.control.accounts().find((account) => account.phone === phone)?.linkedDevices ?? []

test('a code entered on the phone links the device that asked for it (Baileys requestPairingCode)', async () => {
  const phone = '15550007001'
  const device = client()
  await device.waitForQr()
  const sock = device.sock
  assert.ok(sock)
  const asked = sandbox.control.events.waitFor('pairing-code', (event) => event.phone === phone)
  const code = await sock.requestPairingCode(phone)
  await asked
  assert.match(code, /^[0-9A-Z]{8}$/)

  // Another code: the device's key bundle does not open, nothing is linked, and the device keeps waiting.
  const wrong = code.startsWith('A') ? `B${code.slice(1)}` : `A${code.slice(1)}`
  await assert.rejects(sandbox.control.enterPairingCode(phone, { code: wrong }), {
    code: 'invalid_parameter',
  })
  assert.deepEqual(linkedDevices(phone), [])
  assert.equal(device.sock?.authState.creds.registered, false)

  const typed = `${code.slice(0, 4)}-${code.slice(4).toLowerCase()}`
  const { jid, lid } = await sandbox.control.enterPairingCode(phone, { code: typed, name: 'Coded' })
  assert.match(jid, new RegExp(`^${phone}:\\d+@s\\.whatsapp\\.net$`))
  assert.match(lid, /^\d{15}:\d+@lid$/)
  const restart = await device.waitForClose()
  assert.equal(restart.code, 515)
  await device.waitForOpen()
  assert.equal(device.me?.id, jid)
  assert.equal(device.me?.lid, lid)
  assert.equal(linkedDevices(phone).length, 1)
  assert.equal(device.auth.state.creds.registered, true)
})

test('a code for a number no device asked for is refused with conflict, and links nothing', async () => {
  const device = client()
  await device.waitForQr()
  const asked = sandbox.control.events.waitFor('pairing-code', (event) => event.phone === '15550007002')
  await device.sock?.requestPairingCode('15550007002')
  await asked
  await assert.rejects(sandbox.control.enterPairingCode('15550007003', { code: 'ABCD-EFGH' }), {
    code: 'conflict',
  })
  await assert.rejects(sandbox.control.enterPairingCode('15550007002', { code: 'ABC' }), {
    code: 'invalid_parameter',
  })
  assert.deepEqual(linkedDevices('15550007003'), [])
  assert.deepEqual(linkedDevices('15550007002'), [])
})
