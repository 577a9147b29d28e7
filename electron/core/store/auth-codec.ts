/** Encrypts values at rest; the desktop shell passes one backed by the OS keychain (Electron safeStorage). */
export interface AuthCipher {
  encrypt(data: Buffer): Buffer
  decrypt(data: Buffer): Buffer
}

/** First byte of an encrypted value; plain values are JSON text, which never starts with it. */
const ENCRYPTED = 0x01

/**
 * JSON that keeps Buffers and Uint8Arrays, in the same shape as Baileys' `BufferJSON`
 * (`{"type":"Buffer","data":"<base64>"}`), so a value written here reads back the way Baileys expects.
 */
export const bufferJson = {
  replacer(this: unknown, _key: string, value: unknown): unknown {
    if (Buffer.isBuffer(value) || value instanceof Uint8Array) {
      return { type: 'Buffer', data: Buffer.from(value).toString('base64') }
    }
    if (isSerializedBuffer(value) && Array.isArray(value.data)) {
      return { type: 'Buffer', data: Buffer.from(value.data as number[]).toString('base64') }
    }
    return value
  },
  reviver(_key: string, value: unknown): unknown {
    if (isSerializedBuffer(value) && typeof value.data === 'string') return Buffer.from(value.data, 'base64')
    if (typeof value === 'object' && value !== null && !Array.isArray(value) && isByteMap(value)) {
      return Buffer.from(Object.values(value) as number[])
    }
    return value
  },
}

function isSerializedBuffer(value: unknown): value is { type: 'Buffer'; data: unknown } {
  return typeof value === 'object' && value !== null && (value as { type?: unknown }).type === 'Buffer'
}

/** An object the reviver turns into a Buffer: only numeric keys, only number values (a JSON'd Uint8Array). */
function isByteMap(value: object): boolean {
  const keys = Object.keys(value)
  if (keys.length === 0 || !keys.every((k) => !Number.isNaN(parseInt(k, 10)))) return false
  return Object.values(value).every((v) => typeof v === 'number')
}

/** The stored bytes of a value: JSON text, or the marker byte and the cipher's output. */
export function encodeValue(value: unknown, cipher: AuthCipher | undefined): Buffer {
  const plain = Buffer.from(JSON.stringify(value, bufferJson.replacer), 'utf8')
  return cipher ? Buffer.concat([Buffer.from([ENCRYPTED]), cipher.encrypt(plain)]) : plain
}

/** Whether stored bytes were encrypted with a cipher (the desktop app's keychain), so need it to be read. */
export function isEncryptedValue(stored: Uint8Array): boolean {
  return stored[0] === ENCRYPTED
}

/** The value stored as `stored`; a plain value reads with or without a cipher, an encrypted one needs it. */
export function decodeValue(stored: Uint8Array, cipher: AuthCipher | undefined): unknown {
  let plain: Buffer = Buffer.from(stored)
  if (isEncryptedValue(plain)) {
    if (!cipher) throw new Error('the credentials are encrypted by the desktop app; open them there')
    plain = cipher.decrypt(plain.subarray(1))
  }
  return JSON.parse(plain.toString('utf8'), bufferJson.reviver)
}

/** What `copyAsDecoded` answers for a value whose decoded form it cannot build exactly. */
export const NOT_COPIED: unique symbol = Symbol('not copied')

/**
 * A fresh copy equal to what decoding the value's encoding gives (Uint8Arrays become Buffers, undefined
 * properties are dropped), built without the JSON text. Anything it cannot mirror exactly (class instances,
 * `toJSON`, non-finite numbers, the shapes the reviver rewrites) answers NOT_COPIED.
 */
export function copyAsDecoded(value: unknown): unknown {
  switch (typeof value) {
    case 'string':
    case 'boolean':
      return value
    case 'number':
      return Number.isFinite(value) ? value + 0 : NOT_COPIED
    case 'object':
      if (value === null) return null
      if (value instanceof Uint8Array) return Buffer.from(value)
      return Array.isArray(value) ? copyArray(value) : copyObject(value)
    default:
      return NOT_COPIED
  }
}

function copyArray(value: unknown[]): unknown {
  const copy: unknown[] = []
  for (const item of value) {
    if (item === undefined || typeof item === 'function' || typeof item === 'symbol') {
      copy.push(null)
      continue
    }
    const itemCopy = copyAsDecoded(item)
    if (itemCopy === NOT_COPIED) return NOT_COPIED
    copy.push(itemCopy)
  }
  return copy
}

function copyObject(value: object): unknown {
  const prototype: unknown = Object.getPrototypeOf(value)
  if (prototype !== Object.prototype && prototype !== null) return NOT_COPIED
  if (typeof (value as { toJSON?: unknown }).toJSON === 'function' || isSerializedBuffer(value)) {
    return NOT_COPIED
  }
  const copy: Record<string, unknown> = {}
  for (const [key, item] of Object.entries(value)) {
    if (item === undefined || typeof item === 'function' || typeof item === 'symbol') continue
    if (key === '__proto__') return NOT_COPIED
    const itemCopy = copyAsDecoded(item)
    if (itemCopy === NOT_COPIED) return NOT_COPIED
    copy[key] = itemCopy
  }
  return isByteMap(copy) ? NOT_COPIED : copy
}
