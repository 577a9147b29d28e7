import assert from 'node:assert/strict'
import { test } from 'node:test'
import { type SafeStorageLike, safeStorageCipher } from './safe-storage-cipher'

/** A keychain stand-in that, like the real one, only takes and gives back strings. */
function keychain(backend: string): SafeStorageLike {
  return {
    isEncryptionAvailable: () => true,
    getSelectedStorageBackend: () => backend,
    encryptString: (text) => Buffer.from([...Buffer.from(text, 'utf8')].reverse()),
    decryptString: (data) => Buffer.from([...data].reverse()).toString('utf8'),
  }
}

test('credentials of any bytes (not only text) come back unchanged through the string-only keychain', () => {
  const cipher = safeStorageCipher(keychain('gnome_libsecret'), 'linux')
  assert.ok(cipher)
  const secret = Buffer.from([0x00, 0xff, 0xfe, 0x80, 0xc3, 0x28, 0x0a])
  const stored = cipher.encrypt(secret)
  assert.notDeepEqual(stored, secret)
  assert.deepEqual(cipher.decrypt(stored), secret)
})

test("Linux's plain-text fallback and a missing keychain give no cipher (files stay plain, mode 0600)", () => {
  assert.equal(safeStorageCipher(keychain('basic_text'), 'linux'), undefined)
  assert.equal(
    safeStorageCipher({ ...keychain('unknown'), isEncryptionAvailable: () => false }, 'darwin'),
    undefined,
  )
})
