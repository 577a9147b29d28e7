import assert from 'node:assert/strict'
import { test } from 'node:test'
import { postgresSuite } from '../testing/postgres-server'
import { PostgresAuthStore } from './auth'

postgresSuite('the auth store on PostgreSQL', (pool) => {
  test('keys: reads see queued writes at once, a batch commits whole, and a new store reads what was committed', async () => {
    const auth = new PostgresAuthStore(pool(), '/nonexistent')
    const store = auth.forInstance('A')
    assert.equal(store.readCreds(), undefined)
    await store.writeCreds({ me: { id: '1555:1@s.whatsapp.net' }, registrationId: 7 })
    await store.setKeys({ session: { s1: { n: 1 }, s2: { n: 2 } }, 'pre-key': { '1': { k: 'x' } } })
    assert.deepEqual(await store.getKeys('session', ['s1', 's2', 'none']), { s1: { n: 1 }, s2: { n: 2 } })
    await store.setKeys({ session: { s1: null, s2: { n: 3 } } })
    assert.deepEqual(await store.getKeys('session', ['s1', 's2']), { s2: { n: 3 } }, 'queued, already read')
    await store.committed()
    assert.equal(await store.countKeys('session'), 1)
    assert.equal(await auth.countEntries('A'), 3, 'creds, one session, one pre-key')

    // Another node (or a restart) reads the credentials at load and the keys from the database.
    const restarted = new PostgresAuthStore(pool(), '/nonexistent')
    await restarted.load(['A', 'B'])
    const again = restarted.forInstance('A')
    assert.deepEqual(again.readCreds(), { me: { id: '1555:1@s.whatsapp.net' }, registrationId: 7 })
    assert.deepEqual(await again.getKeys('session', ['s1', 's2']), { s2: { n: 3 } })
    assert.deepEqual(await again.getKeys('pre-key', ['1']), { '1': { k: 'x' } })
    assert.equal(await restarted.exists('A'), true)
    assert.equal(await restarted.exists('B'), false)
    await restarted.close()

    await auth.wipe('A')
    assert.equal(await auth.countEntries('A'), 0)
    const wiped = auth.forInstance('A')
    assert.equal(wiped.readCreds(), undefined)
    assert.deepEqual(await wiped.getKeys('session', ['s2']), {}, 'no cached value outlives the wipe')
    await auth.close()
  })

  test('a value read while a write of it commits is never read back older than the write', async () => {
    const auth = new PostgresAuthStore(pool(), '/nonexistent')
    const store = auth.forInstance('C')
    await store.setKeys({ session: { s: { v: 1 } } })
    await store.committed()
    const reader = new PostgresAuthStore(pool(), '/nonexistent').forInstance('C')
    for (let v = 2; v < 30; v++) {
      const read = reader.getKeys('session', ['s'])
      await reader.setKeys({ session: { s: { v } } })
      await read
      assert.deepEqual(await reader.getKeys('session', ['s']), { s: { v } })
    }
    await reader.committed()
    assert.deepEqual(
      await new PostgresAuthStore(pool(), '/nonexistent').forInstance('C').getKeys('session', ['s']),
      { s: { v: 29 } },
    )
    await auth.close()
  })
})
