import type { CoreDeps } from '../core'

export type CredentialCipher = NonNullable<CoreDeps['cipher']>

/** The parts of Electron's safeStorage the cipher uses. */
export interface SafeStorageLike {
  isEncryptionAvailable(): boolean
  encryptString(plainText: string): Buffer
  decryptString(encrypted: Buffer): string
  getSelectedStorageBackend?(): string
}

/**
 * Encrypts account credentials with the OS keychain (Keychain, DPAPI, libsecret/kwallet) through safeStorage.
 * None when no keychain is available, or when Linux would fall back to its built-in plain-text password,
 * which protects nothing that the files' 0600 permissions do not already.
 */
export function safeStorageCipher(
  safeStorage: SafeStorageLike,
  platform = process.platform,
): CredentialCipher | undefined {
  if (!safeStorage.isEncryptionAvailable()) return undefined
  if (platform === 'linux' && safeStorage.getSelectedStorageBackend?.() === 'basic_text') return undefined
  // safeStorage encrypts strings; base64 carries arbitrary bytes through it unchanged.
  return {
    encrypt: (data) => safeStorage.encryptString(data.toString('base64')),
    decrypt: (data) => Buffer.from(safeStorage.decryptString(data), 'base64'),
  }
}
