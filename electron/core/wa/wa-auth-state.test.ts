import assert from 'node:assert/strict'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, test } from 'node:test'
import { BufferJSON, initAuthCreds, proto } from '@whiskeysockets/baileys'
import { AuthStore, bufferJson } from '../store/auth-store'
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
  const auth = new AuthStore(dir)
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

  const reopenedAuth = new AuthStore(dir)
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
