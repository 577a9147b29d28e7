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

function client(
  options: { qrTimeoutMs?: number; onBaileysWarning?: (line: string) => void } = {},
): SandboxClient {
  const created = new SandboxClient({ endpoint: sandbox.endpoint, ...options })
  clients.push(created)
  return created.start()
}

test('a new device completes the Noise handshake and shows QR codes that rotate to a new ref', async () => {
  const device = client({ qrTimeoutMs: 500 })
  const first = await device.waitForQr(1)
  const second = await device.waitForQr(2)
  assert.match(first, /^https:\/\/wa\.me\/settings\/linked_devices#2@/)
  assert.notEqual(first.split(',')[0], second.split(',')[0])
  assert.equal(first.split(',')[1], second.split(',')[1], 'same noise key, new ref')
  await device.stop()
})

test('a QR the network never issued is refused with qr_not_found', async () => {
  await assert.rejects(
    sandbox.control.link({
      qr: 'https://wa.me/settings/linked_devices#2@nope,a,b,c,1',
      phone: '15550000001',
    }),
    {
      code: 'qr_not_found',
    },
  )
})

test('a scanned device restarts with 515, logs in, answers every init query and is open', async () => {
  const warnings: string[] = []
  const device = client({ onBaileysWarning: (line) => warnings.push(line) })
  const qr = await device.waitForQr()
  const { jid, lid } = await sandbox.control.link({ qr, phone: '15550001111', name: 'Desk' })
  assert.match(jid, /^15550001111:\d+@s\.whatsapp\.net$/)
  assert.match(lid, /^\d{15}:\d+@lid$/)
  const restart = await device.waitForClose()
  assert.equal(restart.code, 515)
  await device.waitForOpen()
  assert.equal(device.me?.id, jid)
  assert.equal(device.me?.lid, lid)
  // The phone's history bootstrap and the empty app state let Baileys finish its first sync.
  await device.waitFor(
    () => device.auth.state.creds.accountSyncCounter > 0 && device.historySets === 1,
    'history sync and app state sync done',
  )
  assert.equal(device.me && 'name' in device.me ? (device.me as { name?: string }).name : undefined, 'Desk')
  const sock = device.sock
  assert.ok(sock)
  const privacy = await sock.fetchPrivacySettings(true)
  assert.equal(privacy.readreceipts, 'all')
  assert.deepEqual(await sock.fetchBlocklist(), [])
  assert.equal(warnings.filter((line) => /timed? ?out/i.test(line)).length, 0, warnings.join('\n'))
})

test('a linked device that reconnects logs in again without a new scan', async () => {
  const account = sandbox.control.accounts().find((a) => a.phone === '15550001111')
  assert.equal(account?.linkedDevices.length, 1)
  await sandbox.control.drop('15550001111', 'close')
  const device = clients.at(-1) as SandboxClient
  const closed = await device.waitForClose(2)
  assert.equal(closed.code, 428)
  await device.waitForOpen(2)
})

test('a number that was never added is not on the network', async () => {
  const device = clients.at(-1) as SandboxClient
  await sandbox.control.addAccount({ phone: '15557770000' })
  const sock = device.sock
  assert.ok(sock)
  const known = await sock.onWhatsApp('15557770000')
  assert.equal(known?.[0]?.exists, true)
  assert.deepEqual(await sock.onWhatsApp('19990000000'), [])
})
