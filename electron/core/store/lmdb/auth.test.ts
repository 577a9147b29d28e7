import assert from 'node:assert/strict'
import { spawn } from 'node:child_process'
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, describe, test } from 'node:test'
import { fileURLToPath } from 'node:url'
import { open } from 'lmdb'
import { encodeValue } from '../auth-codec'
import type { AuthCipher } from '../auth-store'
import { xorCipher } from '../../testing/xor-cipher'
import { LmdbAuthStore } from './auth'

const roots: string[] = []
function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'linkdesk-auth-'))
  roots.push(dir)
  return dir
}
after(() => roots.forEach((dir) => rmSync(dir, { recursive: true, force: true })))

/** Writes an auth environment the way the per-instance store of earlier versions did. */
async function writeLegacyAuth(dir: string, values: Record<string, unknown>, cipher?: AuthCipher) {
  mkdirSync(dir, { recursive: true })
  const db = open<Buffer, string>({ path: dir, encoding: 'binary', compression: false, maxDbs: 1 })
  await db.transaction(() => {
    for (const [key, value] of Object.entries(values)) void db.put(key, encodeValue(value, cipher))
  })
  await db.close()
}

/** A key id long enough for lmdb to write its key without escapes, as it does for keys of 64 characters and more. */
const LONG_ID = `120363776314219747298@g.us::${'1'.repeat(60)}::1`

describe('InstanceAuthStore', () => {
  test('with a cipher, nothing readable reaches the file and the files are user-only', async () => {
    const dataDir = tempDir()
    const auth = new LmdbAuthStore(dataDir, xorCipher)
    const store = auth.forInstance('A')
    await store.writeCreds({ secret: 'PLAINTEXT-CREDS-MARKER' })
    await store.setKeys({ session: { a: { secret: 'PLAINTEXT-KEY-MARKER' } } })
    assert.equal(store.readCreds<any>().secret, 'PLAINTEXT-CREDS-MARKER')
    await auth.close()
    const dir = join(dataDir, 'auth')
    const data = readFileSync(join(dir, 'data.mdb'))
    assert.equal(data.includes('PLAINTEXT-CREDS-MARKER'), false)
    assert.equal(data.includes('PLAINTEXT-KEY-MARKER'), false)
    for (const file of readdirSync(dir)) assert.equal(statSync(join(dir, file)).mode & 0o077, 0, file)
    assert.equal(statSync(dir).mode & 0o077, 0)
  })
})

describe('read-only reads', () => {
  test('share one decoded value until a write replaces it with a copy of what was written', async () => {
    const auth = new LmdbAuthStore(tempDir())
    const store = auth.forInstance('A')
    await store.setKeys({ session: { a: { n: 1, key: Buffer.from([1]) } } })
    const first = (await store.getKeys('session', ['a'], { readOnly: true })).a
    assert.equal((await store.getKeys('session', ['a'], { readOnly: true })).a, first)
    assert.notEqual((await store.getKeys('session', ['a'])).a, first, 'other reads decode a fresh value')

    const written = { n: 2, key: new Uint8Array([2]), gone: undefined }
    await store.setKeys({ session: { a: written } })
    written.n = 99
    const cached = (await store.getKeys('session', ['a'], { readOnly: true })).a
    assert.deepEqual(cached, { n: 2, key: Buffer.from([2]) })
    assert.ok(Buffer.isBuffer((cached as any).key), 'as decoding would give it')
    assert.deepEqual((await store.getKeys('session', ['a'])).a, cached)

    await store.setKeys({ session: { a: null } })
    assert.deepEqual(await store.getKeys('session', ['a'], { readOnly: true }), {})
    await auth.close()
  })

  test('a written value that cannot be copied exactly leaves the cache and is decoded on the next read', async () => {
    const auth = new LmdbAuthStore(tempDir())
    const store = auth.forInstance('A')
    await store.setKeys({ tctoken: { a: { token: Buffer.from([1]) } } })
    await store.getKeys('tctoken', ['a'], { readOnly: true })
    class Token {
      token = Buffer.from([2])
    }
    await store.setKeys({ tctoken: { a: new Token() } })
    const read = (await store.getKeys('tctoken', ['a'], { readOnly: true })).a
    assert.ok(!(read instanceof Token))
    assert.deepEqual(read, { token: Buffer.from([2]) })
    await auth.close()
  })

  test('more keys than the cache holds still read back right', async () => {
    const auth = new LmdbAuthStore(tempDir())
    const store = auth.forInstance('A')
    const sessions: Record<string, unknown> = {}
    for (let i = 0; i < 1000; i++) sessions[`s${i}`] = { i, record: Buffer.alloc(600, i % 256) }
    await store.setKeys({ session: sessions })
    for (let round = 0; round < 2; round++) {
      for (let i = 0; i < 1000; i++) {
        const { [`s${i}`]: value } = (await store.getKeys('session', [`s${i}`], { readOnly: true })) as any
        assert.equal(value.i, i)
        assert.deepEqual(value.record, Buffer.alloc(600, i % 256))
      }
    }
    await auth.close()
  })
})

describe('AuthStore', () => {
  test('instances share one environment under their own prefixes, and closing one leaves the others open', async () => {
    const dataDir = tempDir()
    const auth = new LmdbAuthStore(dataDir)
    await auth.forInstance('A').setKeys({ session: { x: 'of A' } })
    await auth.forInstance('A1').setKeys({ session: { x: 'of A1' } })
    await auth.forInstance('A').committed()
    assert.deepEqual(await auth.forInstance('A').getKeys('session', ['x']), { x: 'of A' })
    assert.equal(await auth.forInstance('A').countKeys('session'), 1)
    assert.deepEqual(readdirSync(dataDir), ['auth'])

    const a = auth.forInstance('A')
    await a.close()
    await assert.rejects(a.getKeys('session', ['x']), /closed/)
    assert.deepEqual(await auth.forInstance('A1').getKeys('session', ['x']), { x: 'of A1' })
    await auth.close()
  })

  test("an earlier version's per-instance environment is imported once, then its folder deleted", async () => {
    const dataDir = tempDir()
    const legacy = join(dataDir, 'instances', 'OLD', 'auth')
    await writeLegacyAuth(
      legacy,
      {
        creds: { me: 'old', key: Buffer.from([7]) },
        'session\u0000a': { n: 1 },
        'pre-key\u00001': { p: 1 },
        [`sender-key\u0000${LONG_ID}`]: { k: 2 },
      },
      xorCipher,
    )
    const auth = new LmdbAuthStore(dataDir, xorCipher)
    assert.equal(await auth.exists('OLD'), true)
    assert.equal(existsSync(legacy), false)
    const store = auth.forInstance('OLD')
    assert.deepEqual(store.readCreds(), { me: 'old', key: Buffer.from([7]) })
    assert.deepEqual(await store.getKeys('session', ['a']), { a: { n: 1 } })
    assert.equal(await store.countKeys('pre-key'), 1)
    assert.deepEqual(await store.getKeys('sender-key', [LONG_ID]), { [LONG_ID]: { k: 2 } }, 'long keys too')
    await store.writeCreds({ me: 'new' })
    await auth.close()

    // A folder left behind once the import committed (a crash before the delete) does not replace newer data.
    await writeLegacyAuth(legacy, { creds: { me: 'stale' } })
    const reopened = new LmdbAuthStore(dataDir, xorCipher)
    assert.deepEqual(reopened.forInstance('OLD').readCreds(), { me: 'new' })
    assert.equal(existsSync(legacy), false)
    assert.equal(await reopened.countEntries('OLD'), 4)
    await reopened.close()
  })
})

const writer = fileURLToPath(new URL('../../testing/auth-store-writer.ts', import.meta.url))

function runWriterAndKill(dataDir: string, killAfterMs: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', writer, dataDir], {
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
    const dataDir = tempDir()
    let lastSeq = 0
    for (let round = 0; round < 8; round++) {
      await runWriterAndKill(dataDir, 20 + round * 37)
      const auth = new LmdbAuthStore(dataDir)
      const seqs: number[] = []
      for (const id of ['A', 'B']) {
        const store = auth.forInstance(id)
        const creds = store.readCreds<{ seq: number }>()
        assert.ok(creds, `round ${round} ${id}: creds missing`)
        const ids = Array.from({ length: 40 }, (_, i) => `s${i}`)
        const sessions = Object.values(await store.getKeys('session', ids)) as Array<{ seq: number }>
        assert.equal(sessions.length, 40, `round ${round} ${id}: a batch was half applied`)
        const keySeq = sessions[0]!.seq
        assert.ok(
          sessions.every((s) => s.seq === keySeq),
          `round ${round} ${id}: sessions from different batches`,
        )
        assert.ok(
          keySeq === creds.seq || keySeq === creds.seq + 1,
          `round ${round} ${id}: keys and creds out of order`,
        )
        assert.equal(
          await store.countKeys('pre-key'),
          1,
          `round ${round} ${id}: pre-key delete and put not atomic`,
        )
        seqs.push(creds.seq)
      }
      const [a, b] = seqs as [number, number]
      assert.ok(b === a || b === a - 1, `round ${round}: instances written out of call order (${a}, ${b})`)
      assert.ok(a >= lastSeq, `round ${round}: went back in time`)
      lastSeq = a
      await auth.close()
    }
    assert.ok(lastSeq > 8, 'the writer made progress')
  })
})
