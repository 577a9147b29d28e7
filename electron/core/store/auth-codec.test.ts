import assert from 'node:assert/strict'
import { test } from 'node:test'
import { decodeValue, encodeValue } from './auth-codec'

test('values decode with or without the marker of encryption', () => {
  const cipher = {
    encrypt: (data: Buffer) => Buffer.from(data).reverse(),
    decrypt: (data: Buffer) => Buffer.from(data).reverse(),
  }
  const value = { a: Buffer.from([1]) }
  assert.deepEqual(decodeValue(encodeValue(value, undefined), cipher), value)
  assert.deepEqual(decodeValue(encodeValue(value, cipher), cipher), value)
  assert.throws(() => decodeValue(encodeValue(value, cipher), undefined), /encrypted/)
})
