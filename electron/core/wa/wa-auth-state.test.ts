import assert from 'node:assert/strict'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, test } from 'node:test'
import { BufferJSON, initAuthCreds, proto } from '@whiskeysockets/baileys'
import { LmdbAuthStore } from '../store/lmdb/auth'
import { bufferJson } from '../store/auth-store'
import { isLinked, loadWaAuthState } from './wa-auth-state'

const dir = mkdtempSync(join(tmpdir(), 'linkdesk-wa-auth-'))
after(() => rmSync(dir, { recursive: true, force: true }))

test("the store's JSON is Baileys' BufferJSON, both ways", () => {
  const creds = initAuthCreds()
  const ours = JSON.stringify(creds, bufferJson.replacer)
  assert.equal(ours, JSON.stringify(creds, BufferJSON.replacer))
  assert.deepEqual(JSON.parse(ours, bufferJson.reviver), JSON.parse(ours, BufferJSON.reviver))
})

test('fresh creds are made once, saved on demand, and reload as the same identity; app-state keys revive', async () => {
  const auth = new LmdbAuthStore(dir)
  const store = auth.forInstance('a')
  const first = loadWaAuthState(store)
  assert.equal(isLinked(first.state.creds), false)
  first.state.creds.me = { id: '15551234567:3@s.whatsapp.net', name: 'Desk' }
  first.state.creds.account = proto.ADVSignedDeviceIdentity.create({ details: Buffer.from([1]) })
  await first.saveCreds()
  const keyData = {
    keyData: Buffer.from([1, 2, 3]),
    fingerprint: { rawId: 7, currentIndex: 1 },
    timestamp: 5,
  }
  await first.state.keys.set({
    'app-state-sync-key': { AAAA: keyData as never },
    'lid-mapping': { x: '1@lid' as never },
  })
  await auth.close()

  const reopenedAuth = new LmdbAuthStore(dir)
  const second = loadWaAuthState(reopenedAuth.forInstance('a'))
  assert.deepEqual(
    Buffer.from(second.state.creds.noiseKey.private),
    Buffer.from(first.state.creds.noiseKey.private),
  )
  assert.equal(isLinked(second.state.creds), true)
  const { AAAA } = await second.state.keys.get('app-state-sync-key', ['AAAA', 'missing'])
  assert.ok(AAAA instanceof proto.Message.AppStateSyncKeyData)
  assert.deepEqual(Buffer.from(AAAA.keyData!), Buffer.from([1, 2, 3]))
  assert.deepEqual(await second.state.keys.get('lid-mapping', ['x']), { x: '1@lid' })
  await reopenedAuth.close()
})

test('cached reads: app-state keys are new objects each read, values Baileys changes are never shared', async () => {
  const auth = new LmdbAuthStore(join(dir, 'cache'))
  const { state } = loadWaAuthState(auth.forInstance('c'))
  await state.keys.set({
    'app-state-sync-key': { K: { keyData: Buffer.from([1, 2]), timestamp: 5 } as never },
    'device-list': { u: ['0', '1'] },
    'sender-key-memory': { g: { 'a@s.whatsapp.net': true } },
    session: { s: Buffer.from([3]) },
  })
  const { K: first } = await state.keys.get('app-state-sync-key', ['K'])
  const { K: second } = await state.keys.get('app-state-sync-key', ['K'])
  assert.ok(second instanceof proto.Message.AppStateSyncKeyData)
  assert.notEqual(first, second)
  first!.timestamp = 99
  assert.equal(Number(second!.timestamp), 5)
  assert.equal(Number((await state.keys.get('app-state-sync-key', ['K'])).K!.timestamp), 5)

  ;(await state.keys.get('device-list', ['u'])).u!.push('2')
  assert.deepEqual((await state.keys.get('device-list', ['u'])).u, ['0', '1'])
  ;(await state.keys.get('sender-key-memory', ['g'])).g!['b@s.whatsapp.net'] = true
  assert.deepEqual((await state.keys.get('sender-key-memory', ['g'])).g, { 'a@s.whatsapp.net': true })

  const { s } = await state.keys.get('session', ['s'])
  assert.equal((await state.keys.get('session', ['s'])).s, s, 'sessions are decoded once')
  assert.deepEqual(Buffer.from(s!), Buffer.from([3]))
  await auth.close()
})
