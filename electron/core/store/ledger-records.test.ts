import assert from 'node:assert/strict'
import { test } from 'node:test'
import type { LedgerRecords } from './ledger-records'
import { LmdbLedgerRecords } from './lmdb/ledger'
import { PostgresLedgerRecords } from './postgres/ledger'
import { eachBackend, openOn, type PerBackend } from '../testing/backends'

const ledgerRecords: PerBackend<LedgerRecords> = {
  lmdb: ({ db }) => new LmdbLedgerRecords(db),
  postgres: ({ pool }) => new PostgresLedgerRecords(pool),
}

eachBackend((backend) => {
  test(`${backend.kind}: an entry is kept per instance and key, replaced whole by the next put, and survives a restart`, async () => {
    const storage = await backend.fresh()
    const records = openOn(storage, ledgerRecords)
    assert.equal(await records.get('i1', 'k'), undefined)
    await records.put('i1', 'k', { fingerprint: 'f', messageId: 'M1', at: 1_000 })
    await records.put('i1', 'k', { fingerprint: 'f', messageId: 'M1', answer: { id: 'M1' }, at: 2_000 })
    await records.put('i2', 'k', { fingerprint: 'g', at: 3_000 })
    const restarted = openOn(await backend.restart(storage), ledgerRecords)
    assert.deepEqual(await restarted.get('i1', 'k'), {
      fingerprint: 'f',
      messageId: 'M1',
      answer: { id: 'M1' },
      at: 2_000,
    })
    assert.deepEqual(await restarted.get('i2', 'k'), { fingerprint: 'g', at: 3_000 })
    assert.equal(await restarted.get('i1', 'other'), undefined)
  })

  test(`${backend.kind}: removeBefore drops the entries recorded before the cutoff only`, async () => {
    const records = openOn(await backend.fresh(), ledgerRecords)
    await records.put('i1', 'old', { fingerprint: 'f', at: 1_000 })
    await records.put('i1', 'edge', { fingerprint: 'f', at: 2_000 })
    await records.put('i2', 'new', { fingerprint: 'f', at: 3_000 })
    await records.removeBefore(2_000)
    assert.equal(await records.get('i1', 'old'), undefined)
    assert.equal((await records.get('i1', 'edge'))?.at, 2_000)
    assert.equal((await records.get('i2', 'new'))?.at, 3_000)
  })
})
