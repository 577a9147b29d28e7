import assert from 'node:assert/strict'
import { randomBytes } from 'node:crypto'
import { test } from 'node:test'
import type { WAMessage } from '@whiskeysockets/baileys'
import { linkedDeviceFixture } from './testing/sandbox-fixture'

const ME = '15550021111'
const ALICE = '15551250001'
const DEFAULT_LIFETIME_MS = 30 * 86_400_000

const fixture = linkedDeviceFixture(ME, [{ phone: ALICE, name: 'Alice' }])

/** A document Alice sends that the media host forgets (a lifetime of 1 ms), received by the device. */
async function expiredDocument(bytes: Buffer): Promise<WAMessage> {
  await fixture.sandbox.control.mediaLifetime({ lifetimeMs: 1 })
  const { id } = await fixture.sandbox.control.send(ALICE, {
    to: ME,
    media: { data: bytes, mimetype: 'application/octet-stream', filename: 'old.bin' },
  })
  await fixture.sandbox.control.mediaLifetime({ lifetimeMs: DEFAULT_LIFETIME_MS })
  return fixture.device.waitForMessage(id)
}

test('the media host keeps files 30 days by default, and a test sets another lifetime', async () => {
  assert.deepEqual(await fixture.sandbox.control.mediaLifetime({}), { lifetimeMs: DEFAULT_LIFETIME_MS })
  await assert.rejects(fixture.sandbox.control.mediaLifetime({ lifetimeMs: 0 }), {
    code: 'invalid_parameter',
  })
  assert.deepEqual(await fixture.sandbox.control.mediaLifetime({}), { lifetimeMs: DEFAULT_LIFETIME_MS })
})

test('a forgotten file answers 404; the device asks its phone (media retry), which uploads it again: the bytes download', async () => {
  const sock = fixture.device.sock
  assert.ok(sock)
  const bytes = randomBytes(30_000)
  const received = await expiredDocument(bytes)
  await assert.rejects(
    fixture.device.download(received),
    (error: { status?: number; output?: { statusCode?: number } }) => {
      assert.equal(error.output?.statusCode ?? error.status, 404)
      return true
    },
  )
  // The re-uploaded file's URL is on the host media_conn names, as for an upload.
  await sock.refreshMediaConn(true)
  const updated = await sock.updateMediaMessage(received)
  assert.deepEqual(await fixture.device.download(updated), bytes)
})

test('a phone that deleted its files answers the media retry NOT_FOUND: the device gets a clear 404 error', async () => {
  const sock = fixture.device.sock
  assert.ok(sock)
  const received = await expiredDocument(randomBytes(10_000))
  assert.ok((await fixture.sandbox.control.forgetMedia(ME)).files >= 1)
  await assert.rejects(
    sock.updateMediaMessage(received),
    (error: { message?: string; output?: { statusCode?: number } }) => {
      assert.equal(error.output?.statusCode, 404)
      assert.match(String(error.message), /re-upload media \(2\)/)
      return true
    },
  )
})
