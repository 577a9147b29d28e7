import assert from 'node:assert/strict'
import { mkdtempSync, readdirSync, rmSync, statSync, utimesSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, test } from 'node:test'
import { UploadStore } from './uploads'

const dataDir = mkdtempSync(join(tmpdir(), 'linkdesk-uploads-'))
after(() => rmSync(dataDir, { recursive: true, force: true }))

test('a stored file reads back with its declared type until it expires, and is swept after', async () => {
  const uploads = new UploadStore(dataDir, { ttlMs: 60_000 })
  const before = Date.now()
  const stored = await uploads.save(Buffer.from('%PDF-1.4'), 'Application/PDF; name=a.pdf')
  assert.match(stored.id, /^[A-Za-z0-9_-]{22}$/)
  assert.equal(stored.size, 8)
  assert.ok(stored.expiresAt >= before + 60_000 && stored.expiresAt <= Date.now() + 60_000)
  assert.equal(statSync(join(dataDir, 'uploads', stored.id)).mode & 0o777, 0o600)
  const read = await uploads.read(stored.id)
  assert.equal(read.data.toString(), '%PDF-1.4')
  assert.equal(read.type, 'application/pdf')

  const aMinuteAgo = new Date(Date.now() - 61_000)
  for (const name of [stored.id, `${stored.id}.type`]) {
    utimesSync(join(dataDir, 'uploads', name), aMinuteAgo, aMinuteAgo)
  }
  await assert.rejects(uploads.read(stored.id), { code: 'not_found' })
  const next = await uploads.save(Buffer.from('x'), 'not a type')
  assert.equal((await uploads.read(next.id)).type, 'application/octet-stream')
  assert.deepEqual(readdirSync(join(dataDir, 'uploads')).sort(), [next.id, `${next.id}.type`].sort())
})
