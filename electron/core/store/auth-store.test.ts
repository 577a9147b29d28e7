import assert from 'node:assert/strict'
import { spawn } from 'node:child_process'
import { mkdtempSync, readFileSync, readdirSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, describe, test } from 'node:test'
import { fileURLToPath } from 'node:url'
import { AuthStore, InstanceAuthStore, type AuthCipher } from './auth-store'

const roots: string[] = []
function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'linkdesk-auth-'))
  roots.push(dir)
  return dir
}
after(() => roots.forEach((dir) => rmSync(dir, { recursive: true, force: true })))

/** A reversible stand-in for Electron's safeStorage: XOR with a fixed pad, plus a marker to prove it ran. */
const xorCipher: AuthCipher = {
  encrypt: (data) => Buffer.concat([Buffer.from('X1'), Buffer.from(data.map((b) => b ^ 0x5a))]),
  decrypt: (data) => {
    assert.equal(data.subarray(0, 2).toString(), 'X1')
    return Buffer.from(data.subarray(2).map((b) => b ^ 0x5a))
  },
}

describe('InstanceAuthStore', () => {
  test('round-trips creds and keys with Buffers, Uint8Arrays and unknown key types', async () => {
    const dir = tempDir()
    const store = InstanceAuthStore.open(dir)
    await store.writeCreds({
      noiseKey: { private: Buffer.from([1, 2, 3]) },
      me: { id: '1:2@s.whatsapp.net' },
    })
    await store.setKeys({
      session: { a: { record: new Uint8Array([9, 8]) }, b: { n: 1 } },
      'some-future-type': { x: 'anything' },
    })
    await store.setKeys({ session: { b: null } })
    await store.close()

    const reopened = InstanceAuthStore.open(dir)
    const creds = reopened.readCreds<any>()
    assert.deepEqual(creds.noiseKey.private, Buffer.from([1, 2, 3]))
    assert.equal(creds.me.id, '1:2@s.whatsapp.net')
    const sessions = reopened.getKeys('session', ['a', 'b', 'missing'])
    assert.deepEqual(Object.keys(sessions), ['a'])
    assert.deepEqual((sessions.a as any).record, Buffer.from([9, 8]))
    assert.deepEqual(reopened.getKeys('some-future-type', ['x']), { x: 'anything' })
    await reopened.close()
  })

  test('with a cipher, nothing readable reaches the file and the files are user-only', async () => {
    const dir = tempDir()
    const store = InstanceAuthStore.open(dir, xorCipher)
    await store.writeCreds({ secret: 'PLAINTEXT-CREDS-MARKER' })
    await store.setKeys({ session: { a: { secret: 'PLAINTEXT-KEY-MARKER' } } })
    assert.equal(store.readCreds<any>().secret, 'PLAINTEXT-CREDS-MARKER')
    await store.close()
    const data = readFileSync(join(dir, 'data.mdb'))
    assert.equal(data.includes('PLAINTEXT-CREDS-MARKER'), false)
    assert.equal(data.includes('PLAINTEXT-KEY-MARKER'), false)
    for (const file of readdirSync(dir)) assert.equal(statSync(join(dir, file)).mode & 0o077, 0, file)
    assert.equal(statSync(dir).mode & 0o077, 0)
  })

  test('a store written without a cipher stays readable once a cipher is given; encrypted values need it', async () => {
    const dir = tempDir()
    const plain = InstanceAuthStore.open(dir)
    await plain.writeCreds({ me: 'before' })
    await plain.close()
    const encrypted = InstanceAuthStore.open(dir, xorCipher)
    assert.deepEqual(encrypted.readCreds(), { me: 'before' })
    await encrypted.writeCreds({ me: 'after' })
    await encrypted.close()
    const withoutCipher = InstanceAuthStore.open(dir)
    assert.throws(() => withoutCipher.readCreds(), /encrypted/)
    await withoutCipher.close()
  })

  test('AuthStore.wipe deletes the credentials, remove deletes the whole instance folder', async () => {
    const dataDir = tempDir()
    const auth = new AuthStore(dataDir)
    await auth.forInstance('A').writeCreds({ me: 'a' })
    await auth.forInstance('B').writeCreds({ me: 'b' })
    await auth.wipe('A')
    assert.equal(auth.forInstance('A').readCreds(), undefined)
    await auth.remove('B')
    assert.deepEqual(readdirSync(join(dataDir, 'instances')), ['A'])
    await auth.close()
  })
})

const writer = fileURLToPath(new URL('./testing/auth-store-writer.ts', import.meta.url))

function runWriterAndKill(dir: string, killAfterMs: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', writer, dir], {
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    let stderr = ''
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()))
    child.stdout.once('data', () => setTimeout(() => child.kill('SIGKILL'), killAfterMs))
    child.once('exit', (_code, signal) =>
      signal === 'SIGKILL' ? resolve() : reject(new Error(`writer exited by itself: ${stderr}`)),
    )
  })
}

describe('crash safety', () => {
  test('a writer killed with SIGKILL during heavy key writes always leaves a loadable, consistent store', async () => {
    const dir = tempDir()
    let lastSeq = 0
    for (let round = 0; round < 8; round++) {
      await runWriterAndKill(dir, 20 + round * 37)
      const store = InstanceAuthStore.open(dir)
      const creds = store.readCreds<{ seq: number }>()
      assert.ok(creds, `round ${round}: creds missing`)
      const ids = Array.from({ length: 40 }, (_, i) => `s${i}`)
      const sessions = Object.values(store.getKeys('session', ids)) as Array<{ seq: number }>
      assert.equal(sessions.length, 40, `round ${round}: a batch was half applied`)
      const keySeq = sessions[0]!.seq
      assert.ok(
        sessions.every((s) => s.seq === keySeq),
        `round ${round}: sessions from different batches`,
      )
      assert.ok(
        keySeq === creds.seq || keySeq === creds.seq + 1,
        `round ${round}: keys and creds out of order`,
      )
      assert.equal(store.countKeys('pre-key'), 1, `round ${round}: pre-key delete and put not atomic`)
      assert.ok(creds.seq >= lastSeq, `round ${round}: went back in time`)
      lastSeq = creds.seq
      await store.close()
    }
    assert.ok(lastSeq > 8, 'the writer made progress')
  })
})
