import assert from 'node:assert/strict'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, test } from 'node:test'
import { AppError } from '../errors'
import { openDatabase } from '../store/database'
import { IdempotencyLedger, LmdbLedgerRecords, type LedgerSlot } from './idempotency-ledger'

const dir = mkdtempSync(join(tmpdir(), 'linkdesk-idem-'))
const root = openDatabase(dir)
after(async () => {
  await root.close()
  rmSync(dir, { recursive: true, force: true })
})

test('a retried key answers the first answer without running the work again, also concurrently', async () => {
  const ledger = new IdempotencyLedger(new LmdbLedgerRecords(root))
  let sends = 0
  const work = async ({ commit }: LedgerSlot<string>) => {
    sends++
    await new Promise((resolve) => setImmediate(resolve))
    await commit(`message ${sends}`)
    return `message ${sends}`
  }
  const [a, b] = await Promise.all([ledger.run('i1', 'k1', 'f', work), ledger.run('i1', 'k1', 'f', work)])
  assert.deepEqual([a, b], ['message 1', 'message 1'])
  assert.equal(
    await new IdempotencyLedger(new LmdbLedgerRecords(root)).run('i1', 'k1', 'f', work),
    'message 1',
  )
  assert.equal(sends, 1)
  assert.equal(await ledger.run('i2', 'k1', 'f', work), 'message 2')
})

test('a failure before the message left is not remembered; a different request under a used key is a conflict', async () => {
  const ledger = new IdempotencyLedger(new LmdbLedgerRecords(root))
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

test('a key that left but then failed (no ack) answers the committed answer on retry', async () => {
  const ledger = new IdempotencyLedger(new LmdbLedgerRecords(root))
  await assert.rejects(
    ledger.run('i1', 'k3', 'f', async ({ commit }) => {
      await commit('sent')
      throw new AppError('upstream_timeout')
    }),
    AppError,
  )
  assert.equal(await ledger.run('i1', 'k3', 'f', async () => 'second send'), 'sent')
})

test('a send that died after recording its message id goes out under that id again, never a new one', async () => {
  const first = new IdempotencyLedger(new LmdbLedgerRecords(root))
  let recorded = ''
  await assert.rejects(
    first.run('i1', 'k4', 'f', async ({ messageId }) => {
      recorded = await messageId(() => 'ID-1')
      throw new Error('the app was killed while sending')
    }),
  )
  assert.equal(recorded, 'ID-1')
  // After a restart (a new ledger on the same files) the retry reuses the id, then answers from the ledger.
  const restarted = new IdempotencyLedger(new LmdbLedgerRecords(root))
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
