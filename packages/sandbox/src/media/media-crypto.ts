import {
  createCipheriv,
  createDecipheriv,
  createHash,
  createHmac,
  hkdfSync,
  randomBytes,
  timingSafeEqual,
} from 'node:crypto'
import type { MediaKind } from '../messages/inbox'

const KEY_INFO: Record<MediaKind, string> = {
  image: 'WhatsApp Image Keys',
  sticker: 'WhatsApp Image Keys',
  video: 'WhatsApp Video Keys',
  audio: 'WhatsApp Audio Keys',
  document: 'WhatsApp Document Keys',
}

const MAC_LENGTH = 10

interface MediaKeys {
  iv: Buffer
  cipherKey: Buffer
  macKey: Buffer
}

function expandMediaKey(mediaKey: Uint8Array, kind: MediaKind): MediaKeys {
  const keys = Buffer.from(hkdfSync('sha256', mediaKey, Buffer.alloc(0), KEY_INFO[kind], 112))
  return { iv: keys.subarray(0, 16), cipherKey: keys.subarray(16, 48), macKey: keys.subarray(48, 80) }
}

function mac(keys: MediaKeys, ciphertext: Buffer): Buffer {
  return createHmac('sha256', keys.macKey).update(keys.iv).update(ciphertext).digest().subarray(0, MAC_LENGTH)
}

export function sha256(data: Buffer): Buffer {
  return createHash('sha256').update(data).digest()
}

export interface EncryptedMedia {
  mediaKey: Buffer
  /** AES-CBC ciphertext followed by the 10-byte MAC: the bytes a media host stores. */
  file: Buffer
  fileSha256: Buffer
  fileEncSha256: Buffer
}

/** Encrypts a file as a WhatsApp client does before uploading it. */
export function encryptMedia(plain: Buffer, kind: MediaKind): EncryptedMedia {
  const mediaKey = randomBytes(32)
  const keys = expandMediaKey(mediaKey, kind)
  const cipher = createCipheriv('aes-256-cbc', keys.cipherKey, keys.iv)
  const ciphertext = Buffer.concat([cipher.update(plain), cipher.final()])
  const file = Buffer.concat([ciphertext, mac(keys, ciphertext)])
  return { mediaKey, file, fileSha256: sha256(plain), fileEncSha256: sha256(file) }
}

/** Checks the MAC and decrypts a stored media file. */
export function decryptMedia(file: Buffer, mediaKey: Uint8Array, kind: MediaKind): Buffer {
  const keys = expandMediaKey(mediaKey, kind)
  const ciphertext = file.subarray(0, file.length - MAC_LENGTH)
  const expected = mac(keys, ciphertext)
  if (!timingSafeEqual(expected, file.subarray(file.length - MAC_LENGTH)))
    throw new Error('media MAC mismatch')
  const decipher = createDecipheriv('aes-256-cbc', keys.cipherKey, keys.iv)
  return Buffer.concat([decipher.update(ciphertext), decipher.final()])
}
