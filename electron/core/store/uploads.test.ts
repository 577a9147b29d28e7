import assert from 'node:assert/strict'
import { setTimeout as sleep } from 'node:timers/promises'
import { test } from 'node:test'
import { UploadStore } from './lmdb/uploads'
import { PostgresUploads } from './postgres/uploads'
import { eachBackend, openOn, type PerBackend } from '../testing/backends'
import type { Uploads } from './uploads'

const uploadsFor = (ttlMs?: number): PerBackend<Uploads> => ({
  lmdb: ({ dataDir }) => new UploadStore(dataDir, ttlMs === undefined ? {} : { ttlMs }),
  postgres: ({ pool }) => new PostgresUploads(pool, undefined, ttlMs),
})

eachBackend((backend) => {
  test(`${backend.kind}: a stored file reads back with its declared type; an odd type is a plain file`, async () => {
    const uploads = openOn(await backend.fresh(), uploadsFor(60_000))
    const before = Date.now()
    const stored = await uploads.save(Buffer.from('%PDF-1.4'), 'Application/PDF; name=a.pdf')
    assert.match(stored.id, /^[A-Za-z0-9_-]{22}$/)
    assert.equal(stored.size, 8)
    assert.ok(stored.expiresAt >= before + 60_000 && stored.expiresAt <= Date.now() + 60_000)
    const read = await uploads.read(stored.id)
    assert.equal(read.data.toString(), '%PDF-1.4')
    assert.equal(read.type, 'application/pdf')
    const next = await uploads.save(Buffer.from('x'), 'not a type')
    assert.equal((await uploads.read(next.id)).type, 'application/octet-stream')
  })

  test(`${backend.kind}: an upload past its time is not_found`, async () => {
    const uploads = openOn(await backend.fresh(), uploadsFor(100))
    const stored = await uploads.save(Buffer.from('x'), 'text/plain')
    await sleep(250)
    await assert.rejects(uploads.read(stored.id), { code: 'not_found' })
  })

  test(`${backend.kind}: an unknown or malformed id is not_found and reads nothing outside the folder`, async () => {
    const uploads = openOn(await backend.fresh(), uploadsFor())
    await assert.rejects(uploads.read('AAAAAAAAAAAAAAAAAAAAAA'), { code: 'not_found' })
    await assert.rejects(uploads.read('../config.json'), { code: 'not_found' })
  })
})
