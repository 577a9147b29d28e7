import { createCipheriv, createDecipheriv, hkdfSync, pbkdf2, randomBytes } from 'node:crypto'
import { promisify } from 'node:util'
import { Curve } from '@whiskeysockets/baileys'
import { SandboxError } from '../errors'

/**
 * The phone's side of linking by a pairing code, as WhatsApp does it: the companion's ephemeral key arrives
 * wrapped under a key derived from the 8-character code, so only a phone that was given the code can unwrap
 * it; the phone answers with its own ephemeral key wrapped the same way, and the companion sends back a key
 * bundle encrypted under the two ephemerals' shared secret. The ADV secret both sides then sign the device
 * with is derived from that secret, the identities' shared secret and the bundle's random bytes.
 */

const PBKDF2_ITERATIONS = 2 << 16
const SALT_BYTES = 32
const CTR_IV_BYTES = 16
const GCM_IV_BYTES = 12
const GCM_TAG_BYTES = 16
const KEY_BYTES = 32
const BUNDLE_CIPHER_INFO = 'link_code_pairing_key_bundle_encryption_key'

const derive = promisify(pbkdf2)

/** The code as a person types it (`ABCD-EFGH`, any case, spaces allowed): its 8 characters. */
export function normalizePairingCode(code: string): string {
  const compact = code.replace(/[\s-]/g, '').toUpperCase()
  if (!/^[0-9A-Z]{8}$/.test(compact))
    throw new SandboxError('invalid_parameter', 'code must be the 8 characters the device shows (ABCD-EFGH).')
  return compact
}

function codeKey(code: string, salt: Buffer): Promise<Buffer> {
  return derive(Buffer.from(code, 'utf8'), salt, PBKDF2_ITERATIONS, KEY_BYTES, 'sha256')
}

function ctr(key: Buffer, iv: Buffer, data: Buffer): Buffer {
  const cipher = createCipheriv('aes-256-ctr', key, iv)
  return Buffer.concat([cipher.update(data), cipher.final()])
}

function hkdf(secret: Buffer, info: string, salt: Buffer = Buffer.alloc(0)): Buffer {
  return Buffer.from(hkdfSync('sha256', secret, salt, info, KEY_BYTES))
}

/** A public key wrapped under the code, as `salt ‖ iv ‖ AES-CTR(key)` (80 bytes). */
export async function wrapWithCode(publicKey: Uint8Array, code: string): Promise<Buffer> {
  const salt = randomBytes(SALT_BYTES)
  const iv = randomBytes(CTR_IV_BYTES)
  return Buffer.concat([salt, iv, ctr(await codeKey(code, salt), iv, Buffer.from(publicKey))])
}

/** The public key inside a wrapping; a wrong code gives other bytes (CTR cannot tell). */
export async function unwrapWithCode(wrapped: Buffer, code: string): Promise<Buffer> {
  const salt = wrapped.subarray(0, SALT_BYTES)
  const iv = wrapped.subarray(SALT_BYTES, SALT_BYTES + CTR_IV_BYTES)
  const payload = wrapped.subarray(SALT_BYTES + CTR_IV_BYTES, SALT_BYTES + CTR_IV_BYTES + KEY_BYTES)
  return ctr(await codeKey(code, salt), iv, payload)
}

export interface CompanionKeyBundle {
  companionIdentity: Buffer
  primaryIdentity: Buffer
  random: Buffer
}

/**
 * Opens the companion's key bundle (`salt ‖ iv ‖ AES-GCM(identities ‖ random)`) with the shared secret of the
 * phone's ephemeral key and the companion's; undefined when it does not open (the two sides used different codes).
 */
export function openKeyBundle(bundle: Buffer, ephemeralShared: Buffer): CompanionKeyBundle | undefined {
  const salt = bundle.subarray(0, SALT_BYTES)
  const iv = bundle.subarray(SALT_BYTES, SALT_BYTES + GCM_IV_BYTES)
  const sealed = bundle.subarray(SALT_BYTES + GCM_IV_BYTES)
  if (sealed.length < GCM_TAG_BYTES + 3 * KEY_BYTES) return undefined
  try {
    const decipher = createDecipheriv('aes-256-gcm', hkdf(ephemeralShared, BUNDLE_CIPHER_INFO, salt), iv)
    decipher.setAuthTag(sealed.subarray(sealed.length - GCM_TAG_BYTES))
    const plain = Buffer.concat([decipher.update(sealed.subarray(0, -GCM_TAG_BYTES)), decipher.final()])
    return {
      companionIdentity: plain.subarray(0, KEY_BYTES),
      primaryIdentity: plain.subarray(KEY_BYTES, 2 * KEY_BYTES),
      random: plain.subarray(2 * KEY_BYTES, 3 * KEY_BYTES),
    }
  } catch {
    return undefined
  }
}

/** The ADV secret of a device linked by code, as the companion derives it. */
export function advSecretOf(
  ephemeralShared: Buffer,
  primaryIdentityPrivate: Uint8Array,
  bundle: CompanionKeyBundle,
): Buffer {
  const identityShared = Curve.sharedKey(primaryIdentityPrivate, bundle.companionIdentity)
  return hkdf(Buffer.concat([ephemeralShared, identityShared, bundle.random]), 'adv_secret')
}
