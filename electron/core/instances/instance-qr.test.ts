import assert from 'node:assert/strict'
import { rmSync } from 'node:fs'
import { after, before, test } from 'node:test'
import type { Core } from '../index'
import { call, decodeQr, ok, startCore, tempDataDir, waitForStatus } from '../testing/instance-harness'

let core: Core
let dataDir: string

before(async () => {
  dataDir = tempDataDir()
  core = await startCore({ dataDir, sandbox: true, timings: { qrTimeoutMs: 400 } })
})

after(async () => {
  await core.close()
  rmSync(dataDir, { recursive: true, force: true })
})

test('the QR rotates, then the wait runs out back to idle; generate_qrcode starts a new one', async () => {
  const id = (await ok(core.apiBase, 'create_instance')).instance_id
  const asked = Date.now()
  const first = decodeQr((await ok(core.apiBase, 'generate_qrcode', { instance_id: id })).base64)
  const rotated = await waitForStatus(core, id, (s) => (s.qr?.count ?? 0) >= 2, 'a second QR')
  assert.notEqual(rotated.qr?.text, first)
  // The second code was shown once the first's window (400 ms) had passed, and has a window of its own.
  assert.ok(rotated.qr!.expiresAt > asked + 400)

  const expired = await waitForStatus(core, id, (s) => s.state === 'idle', 'the end of the QR wait')
  assert.equal(expired.cause, 'qr_expired')
  assert.equal(expired.qr, null)
  const { instance } = await ok(core.apiBase, 'instance', { instance_id: id })
  assert.equal(instance.state, 'idle')
  assert.equal(instance.qr_expires_at, null)
  const expiredLink = await call(core.apiBase, 'sandbox/link', { qr: first, phone: '15550200001' })
  assert.equal(expiredLink.status, 404)
  assert.equal(expiredLink.body.code, 'qr_not_found')

  const again = decodeQr((await ok(core.apiBase, 'generate_qrcode', { instance_id: id })).base64)
  assert.notEqual(again, first)
  await ok(core.apiBase, 'sandbox/link', { qr: again, phone: '15550200001' })
  await waitForStatus(core, id, (s) => s.state === 'connected', 'connection')
})
