import { randomInt } from 'node:crypto'

/** WhatsApp pads every plaintext with 1-16 bytes, each equal to the pad length. */
export function addPadding(plain: Buffer): Buffer {
  const length = randomInt(1, 17)
  return Buffer.concat([plain, Buffer.alloc(length, length)])
}

export function removePadding(padded: Buffer): Buffer {
  const length = padded[padded.length - 1] ?? 0
  return padded.subarray(0, padded.length - length)
}
