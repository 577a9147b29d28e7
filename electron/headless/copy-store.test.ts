import assert from 'node:assert/strict'
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { test } from 'node:test'
import { openDatabase } from '../core/store/lmdb/database'
import { LmdbAuthStore } from '../core/store/lmdb/auth'
import { runToEnd } from '../core/testing/run-to-end'
import { xorCipher } from '../core/testing/xor-cipher'

/** Runs `copy-store` as a user would (its own process), answering its exit code and its output. */
function copyStore(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return runToEnd(process.execPath, ['--import', 'tsx', 'electron/headless/copy-store.ts', ...args])
}

test('copy-store refuses a folder whose credentials the desktop app encrypted, says why, and touches nothing', async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'linkdesk-copy-encrypted-'))
  await openDatabase(dataDir).close()
  const written = new LmdbAuthStore(dataDir, xorCipher)
  await written.forInstance('desktop-instance').writeCreds({ me: { id: '15550340001@s.whatsapp.net' } })
  await written.close()

  // No database listens here: a copy that got as far as the database would fail with a connection error.
  const result = await copyStore(['--data-dir', dataDir, '--to', 'postgres://linkdesk@127.0.0.1:1/linkdesk'])
  assert.equal(result.code, 1, result.stdout)
  assert.match(
    result.stderr,
    /credentials of 1 instance\(s\) in .* are encrypted with the desktop app's keychain/,
  )
  assert.match(result.stderr, /nothing was copied/)
  assert.match(result.stderr, /Link those accounts again/)
  assert.doesNotMatch(result.stderr, /ECONNREFUSED/)

  const reopened = new LmdbAuthStore(dataDir, xorCipher)
  try {
    assert.deepEqual(reopened.forInstance('desktop-instance').readCreds(), {
      me: { id: '15550340001@s.whatsapp.net' },
    })
  } finally {
    await reopened.close()
  }
})
