import assert from 'node:assert/strict'
import type { AuthCipher } from '../store/auth-store'

/** A reversible stand-in for Electron's safeStorage: XOR with a fixed pad, plus a marker to prove it ran. */
export const xorCipher: AuthCipher = {
  encrypt: (data) => Buffer.concat([Buffer.from('X1'), Buffer.from(data.map((b) => b ^ 0x5a))]),
  decrypt: (data) => {
    assert.equal(data.subarray(0, 2).toString(), 'X1')
    return Buffer.from(data.subarray(2).map((b) => b ^ 0x5a))
  },
}
