import assert from 'node:assert/strict'
import { test } from 'node:test'
import { AppError } from '../errors'
import type { LedgerRecords } from '../store/ledger-records'
import { LmdbLedgerRecords } from '../store/lmdb/ledger'
import { PostgresLedgerRecords } from '../store/postgres/ledger'
import { eachBackend, openOn, type PerBackend, type Storage } from '../testing/backends'
import { IdempotencyLedger, type LedgerSlot } from './idempotency-ledger'

const ledgerRecords: PerBackend<LedgerRecords> = {
  lmdb: ({ db }) => new LmdbLedgerRecords(db),
  postgres: ({ pool }) => new PostgresLedgerRecords(pool),
}

/** The same tests for each store; `records` opens the ledger's records again (a restart) on the same storage. */
function ledgerTests(name: string, records: () => Promise<LedgerRecords>) {
  test(`${name}: a retried key answers the first answer without running the work again, also concurrently`, async () => {
    const ledger = new IdempotencyLedger(await records())
    let sends = 0
    const work = async ({ commit }: LedgerSlot<string>) => {
      sends++
      await new Promise((resolve) => setImmediate(resolve))
      await commit(`message ${sends}`)
      return `message ${sends}`
    }
    const [a, b] = await Promise.all([ledger.run('i1', 'k1', 'f', work), ledger.run('i1', 'k1', 'f', work)])
    assert.deepEqual([a, b], ['message 1', 'message 1'])
    assert.equal(await new IdempotencyLedger(await records()).run('i1', 'k1', 'f', work), 'message 1')
    assert.equal(sends, 1)
    assert.equal(await ledger.run('i2', 'k1', 'f', work), 'message 2')
  })

  test(`${name}: a failure before the message left is not remembered; a different request under a used key is a conflict`, async () => {
    const ledger = new IdempotencyLedger(await records())
    await assert.rejects(
      ledger.run('i1', 'k2', 'f', async () => {
        throw new AppError('media_unavailable')
      }),
      AppError,
    )
    assert.equal(await ledger.run('i1', 'k2', 'f', async ({ commit }) => (await commit('ok'), 'ok')), 'ok')
    await assert.rejects(
      ledger.run('i1', 'k2', 'other', async () => 'never'),
      (error: unknown) => error instanceof AppError && error.code === 'conflict',
    )
  })

  test(`${name}: an answer committed before the work then failed is what a retry answers`, async () => {
    const ledger = new IdempotencyLedger(await records())
    await assert.rejects(
      ledger.run('i1', 'k3', 'f', async ({ commit }) => {
        await commit('sent')
        throw new AppError('upstream_timeout')
      }),
      AppError,
    )
    assert.equal(await ledger.run('i1', 'k3', 'f', async () => 'second send'), 'sent')
  })

  test(`${name}: until an answer is committed (the network's ack), each retry sends under the recorded id again`, async () => {
    const ledger = new IdempotencyLedger(await records())
    const ids: string[] = []
    let fresh = 0
    const unacknowledged = async ({ messageId }: LedgerSlot<string>) => {
      ids.push(await messageId(() => `ID-${++fresh}`))
      throw new AppError('upstream_timeout')
    }
    await assert.rejects(ledger.run('i1', 'k5', 'f', unacknowledged), AppError)
    await assert.rejects(ledger.run('i1', 'k5', 'f', unacknowledged), AppError)
    const acknowledged = await ledger.run('i1', 'k5', 'f', async ({ messageId, commit }) => {
      const id = await messageId(() => `ID-${++fresh}`)
      ids.push(id)
      await commit(`sent ${id}`)
      return `sent ${id}`
    })
    assert.deepEqual(ids, ['ID-1', 'ID-1', 'ID-1'])
    assert.equal(acknowledged, 'sent ID-1')
    assert.equal(
      await new IdempotencyLedger(await records()).run('i1', 'k5', 'f', unacknowledged),
      'sent ID-1',
    )
  })

  test(`${name}: a send that died after recording its message id goes out under that id again, never a new one`, async () => {
    const first = new IdempotencyLedger(await records())
    let recorded = ''
    await assert.rejects(
      first.run('i1', 'k4', 'f', async ({ messageId }) => {
        recorded = await messageId(() => 'ID-1')
        throw new Error('the app was killed while sending')
      }),
    )
    assert.equal(recorded, 'ID-1')
    // After a restart (a new ledger on the same files) the retry reuses the id, then answers from the ledger.
    const restarted = new IdempotencyLedger(await records())
    const again = await restarted.run('i1', 'k4', 'f', async ({ messageId, commit }) => {
      const id = await messageId(() => 'ID-2')
      await commit(`sent ${id}`)
      return `sent ${id}`
    })
    assert.equal(again, 'sent ID-1')
    assert.equal(await restarted.run('i1', 'k4', 'f', async () => 'third send'), 'sent ID-1')
    await assert.rejects(
      restarted.run('i1', 'k4', 'other', async () => 'never'),
      (error: unknown) => error instanceof AppError && error.code === 'conflict',
    )
  })

  test(`${name}: the sweep forgets keys past the TTL and keeps the others`, async () => {
    let now = 1_000_000
    const ledger = new IdempotencyLedger(await records(), { ttlMs: 1_000, now: () => now })
    await ledger.run('i9', 'old', 'f', async ({ commit }) => (await commit('old answer'), 'old answer'))
    now += 900
    await ledger.run('i9', 'new', 'f', async ({ commit }) => (await commit('new answer'), 'new answer'))
    now += 200
    await ledger.sweep()
    const stored = await records()
    assert.equal(await stored.get('i9', 'old'), undefined)
    assert.equal((await stored.get('i9', 'new'))?.answer, 'new answer')
  })
}

// One storage per backend for all the tests (each uses its own keys); each call opens the records anew on it.
eachBackend((backend) => {
  let storage: Storage | undefined
  ledgerTests(backend.kind, async () => openOn((storage ??= await backend.fresh()), ledgerRecords))
})
