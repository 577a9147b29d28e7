import assert from 'node:assert/strict'
import { test } from 'node:test'
import { bufferJson, copyAsDecoded, decodeValue, encodeValue, NOT_COPIED } from './auth-codec'

const roundTrip = (value: unknown): unknown =>
  JSON.parse(JSON.stringify(value, bufferJson.replacer), bufferJson.reviver)

test('copyAsDecoded gives what encoding and decoding give', () => {
  const values: unknown[] = [
    'text',
    0,
    -0,
    1.5,
    true,
    null,
    [1, 'a', null, undefined, [Buffer.from([1])]],
    Buffer.from([1, 2, 3]),
    new Uint8Array([4, 5]),
    { a: 1, b: undefined, c: { d: [new Uint8Array([6])] }, 10: 'x', e: {} },
    {
      _sessions: { k: { chainKey: { counter: 3, key: 'AAAA' }, messageKeys: { 1: 'BBBB' } } },
      version: 'v1',
    },
    { token: Buffer.alloc(0), timestamp: '17', senderTimestamp: 5 },
  ]
  for (const value of values) {
    const copy = copyAsDecoded(value)
    assert.notEqual(copy, NOT_COPIED, JSON.stringify(value))
    assert.deepStrictEqual(copy, roundTrip(value))
  }
  const buffer = Buffer.from([1])
  const copied = copyAsDecoded({ buffer }) as { buffer: Buffer }
  buffer[0] = 9
  assert.equal(copied.buffer[0], 1, 'bytes are copied, not shared')
})

test('copyAsDecoded declines values whose decoded form it would not mirror', () => {
  class Long {
    low = 1
  }
  const declined: unknown[] = [
    undefined,
    Number.NaN,
    () => 1,
    new Long(),
    { when: new Date(0) },
    { 0: 1, 1: 2 },
    { type: 'Buffer', data: [1, 2] },
    [{ toJSON: () => 'x' }],
    JSON.parse('{"__proto__": 1}'),
  ]
  for (const value of declined) assert.equal(copyAsDecoded(value), NOT_COPIED, String(value))
})

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
