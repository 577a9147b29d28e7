import assert from 'node:assert/strict'
import { existsSync, mkdirSync } from 'node:fs'
import { join } from 'node:path'
import { test } from 'node:test'
import type { AuthCipher, AuthStore } from './auth-store'
import { LmdbAuthStore } from './lmdb/auth'
import { PostgresAuthStore } from './postgres/auth'
import { eachBackend, openOn, type PerBackend } from '../testing/backends'
import { xorCipher } from '../testing/xor-cipher'

const authStore = (cipher?: AuthCipher): PerBackend<AuthStore> => ({
  lmdb: ({ dataDir }) => new LmdbAuthStore(dataDir, cipher),
  postgres: ({ pool, dataDir }) => new PostgresAuthStore(pool, dataDir, cipher),
})

eachBackend((backend) => {
  const name = backend.kind
  test(`${name}: held key writes commit on release, and are dropped when the holder did not keep its message`, async () => {
    const storage = await backend.fresh()
    const auth = openOn(storage, authStore())
    const store = auth.forInstance('A')
    await store.setKeys({ session: { alice: { n: 1 } } })

    // Kept: the held write is read at once, and durable after the release.
    const kept = store.holdWrites()
    const keptWrite = store.setKeys({ session: { alice: { n: 2 } } })
    assert.deepEqual((await store.getKeys('session', ['alice'])).alice, { n: 2 })
    kept(true)
    await keptWrite
    await store.committed()

    // Not kept (the message's event failed): the write is dropped, the store fails from then on, and the
    // next session's store reads what is durable: the session before that message.
    // The credentials written since the store opened are durable: the next store starts from them.
    await store.writeCreds({ me: { id: '1:2@s.whatsapp.net' } })
    const notKept = store.holdWrites()
    assert.equal(store.holding, true)
    const dropped = store.setKeys({ session: { alice: { n: 3 } } })
    let settled = false
    const settling = store.settled().then(() => (settled = true))
    await new Promise((resolve) => setTimeout(resolve, 20))
    assert.equal(settled, false, 'settled() waits for the hold')
    assert.equal(store.usable, true)
    notKept(false)
    await settling
    assert.equal(store.holding, false)
    assert.equal(store.usable, false, 'once settled, the dropped writes are known')
    await dropped.catch(() => undefined)
    await store.committed().catch(() => undefined)
    await assert.rejects(store.setKeys({ session: { bob: { n: 1 } } }), /earlier write/)
    const fresh = auth.forInstance('A')
    assert.notEqual(fresh, store, 'a new session gets a store that reads afresh')
    assert.deepEqual((await fresh.getKeys('session', ['alice', 'bob'])).alice, { n: 2 })
    assert.deepEqual(fresh.readCreds(), { me: { id: '1:2@s.whatsapp.net' } })
    await auth.close()

    const reopened = openOn(storage, authStore())
    await reopened.load(['A'])
    const durable = await reopened.forInstance('A').getKeys('session', ['alice', 'bob'])
    assert.deepEqual(durable, { alice: { n: 2 } })
    await reopened.close()
  })

  test(`${name}: round-trips creds and keys with Buffers, Uint8Arrays and unknown key types`, async () => {
    const storage = await backend.fresh()
    const auth = openOn(storage, authStore())
    const store = auth.forInstance('A')
    await store.writeCreds({
      noiseKey: { private: Buffer.from([1, 2, 3]) },
      me: { id: '1:2@s.whatsapp.net' },
    })
    await store.setKeys({
      session: { a: { record: new Uint8Array([9, 8]) }, b: { n: 1 } },
      'some-future-type': { x: 'anything' },
    })
    await store.setKeys({ session: { b: null } })
    await auth.close()

    const reopened = openOn(storage, authStore())
    await reopened.load(['A'])
    const again = reopened.forInstance('A')
    const creds = again.readCreds<any>()
    assert.deepEqual(creds.noiseKey.private, Buffer.from([1, 2, 3]))
    assert.equal(creds.me.id, '1:2@s.whatsapp.net')
    const sessions = await again.getKeys('session', ['a', 'b', 'missing'])
    assert.deepEqual(Object.keys(sessions), ['a'])
    assert.deepEqual((sessions.a as any).record, Buffer.from([9, 8]))
    assert.deepEqual(await again.getKeys('some-future-type', ['x']), { x: 'anything' })
    await reopened.close()
  })

  test(`${name}: a write is visible to reads once queued, and committed() waits for the disk`, async () => {
    const auth = openOn(await backend.fresh(), authStore())
    const store = auth.forInstance('A')
    const write = store.setKeys({ session: { a: { n: 1 } } })
    assert.deepEqual(await store.getKeys('session', ['a']), { a: { n: 1 } })
    await write
    await store.committed()
    assert.equal(await store.countKeys('session'), 1)
    await auth.close()
  })

  test(`${name}: a store written without a cipher stays readable once a cipher is given; encrypted values need it`, async () => {
    const storage = await backend.fresh()
    const plain = openOn(storage, authStore())
    await plain.forInstance('A').writeCreds({ me: 'before' })
    await plain.close()
    const encrypted = openOn(storage, authStore(xorCipher))
    await encrypted.load(['A'])
    assert.deepEqual(encrypted.forInstance('A').readCreds(), { me: 'before' })
    await encrypted.forInstance('A').writeCreds({ me: 'after' })
    await encrypted.close()
    const withoutCipher = openOn(storage, authStore())
    await withoutCipher.load(['A'])
    assert.throws(() => withoutCipher.forInstance('A').readCreds(), /encrypted/)
    await withoutCipher.close()
  })

  test(`${name}: wipe deletes all the credentials and keys of one instance; remove also its folder`, async () => {
    const storage = await backend.fresh()
    const auth = openOn(storage, authStore())
    for (const id of ['A', 'B', 'C']) {
      await auth.forInstance(id).writeCreds({ me: id })
      await auth.forInstance(id).setKeys({ session: { s: { id } }, 'pre-key': { 1: { id }, 2: { id } } })
    }
    await auth.forInstance('A').getKeys('session', ['s'], { readOnly: true })
    await auth.forInstance('C').committed()
    assert.equal(await auth.exists('A'), true)
    assert.equal(await auth.countEntries('A'), 4)

    await auth.wipe('A')
    assert.equal(await auth.exists('A'), false)
    assert.equal(await auth.countEntries('A'), 0)
    assert.equal(auth.forInstance('A').readCreds(), undefined)
    assert.deepEqual(await auth.forInstance('A').getKeys('session', ['s'], { readOnly: true }), {})

    const folder = join(storage.dataDir, 'instances', 'B')
    mkdirSync(join(folder, 'media'), { recursive: true })
    await auth.remove('B')
    assert.equal(await auth.countEntries('B'), 0)
    assert.equal(existsSync(folder), false)
    await auth.remove('never-stored')

    assert.equal(await auth.countEntries('C'), 4)
    assert.deepEqual(auth.forInstance('C').readCreds(), { me: 'C' })
    await auth.close()
  })

  test(`${name}: long keys stay in their instance: a wipe deletes them, and they are counted`, async () => {
    // Group sender keys and sender-key memory have keys of 64 characters and more.
    const group = '120363776314219747298@g.us'
    const senderKey = `${group}::168229437369622_1::1`
    const auth = openOn(await backend.fresh(), authStore())
    const store = auth.forInstance('6584ECE663DF39866AAA68AF')
    await store.setKeys({
      'sender-key-memory': { [group]: { '1@lid': true } },
      'sender-key': { [senderKey]: { k: 1 } },
      session: { s: { n: 1 } },
    })
    await auth.forInstance('B').setKeys({ 'sender-key-memory': { [group]: { '2@lid': true } } })
    await store.committed()
    await auth.forInstance('B').committed()
    assert.equal(await auth.countEntries('6584ECE663DF39866AAA68AF'), 3)
    assert.equal(await store.countKeys('sender-key-memory'), 1)

    await auth.wipe('6584ECE663DF39866AAA68AF')
    const after = auth.forInstance('6584ECE663DF39866AAA68AF')
    assert.equal(await auth.countEntries('6584ECE663DF39866AAA68AF'), 0)
    assert.deepEqual(
      await after.getKeys('sender-key-memory', [group]),
      {},
      'no memory of whom the old key went to',
    )
    assert.deepEqual(await after.getKeys('sender-key', [senderKey]), {})
    assert.deepEqual(await auth.forInstance('B').getKeys('sender-key-memory', [group]), {
      [group]: { '2@lid': true },
    })
    await auth.close()
  })

  test(`${name}: keys: reads see queued writes at once, a batch commits whole, and a new store reads what was committed`, async () => {
    const storage = await backend.fresh()
    const auth = openOn(storage, authStore())
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

    // A restart (or, on a shared store, another node) reads the credentials at load and the keys from the store.
    const restarted = openOn(storage, authStore())
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

  test(`${name}: a value read while a write of it commits is never read back older than the write`, async () => {
    const storage = await backend.fresh()
    const auth = openOn(storage, authStore())
    const store = auth.forInstance('C')
    await store.setKeys({ session: { s: { v: 1 } } })
    await store.committed()
    const writer = openOn(storage, authStore())
    const reader = writer.forInstance('C')
    for (let v = 2; v < 30; v++) {
      const read = reader.getKeys('session', ['s'])
      await reader.setKeys({ session: { s: { v } } })
      await read
      assert.deepEqual(await reader.getKeys('session', ['s']), { s: { v } })
    }
    await reader.committed()
    await writer.close()
    const restarted = openOn(storage, authStore())
    assert.deepEqual(await restarted.forInstance('C').getKeys('session', ['s']), { s: { v: 29 } })
    await restarted.close()
    await auth.close()
  })
})
