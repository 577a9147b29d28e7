import { sha256 } from './media-crypto'

const PATH_PATTERN = /\/sandbox_([A-Za-z0-9_-]+)\.enc/

/** Encrypted media files held in memory, addressed by the base64url SHA-256 of their bytes. */
export class MediaStore {
  private readonly files = new Map<string, Buffer>()
  hostname = ''

  /** Stores an encrypted file; returns the direct path and full URL a message carries. */
  put(file: Buffer): { directPath: string; url: string } {
    const token = sha256(file).toString('base64url')
    this.files.set(token, file)
    const directPath = `/v/t62.7118-24/sandbox_${token}.enc?ccb=11-4&oe=FFFFFFFF`
    return { directPath, url: `https://${this.hostname}${directPath}` }
  }

  /** The stored file a direct path or URL refers to. */
  get(pathOrUrl: string | null | undefined): Buffer | undefined {
    const token = pathOrUrl ? PATH_PATTERN.exec(pathOrUrl)?.[1] : undefined
    return token ? this.files.get(token) : undefined
  }

  clear(): void {
    this.files.clear()
  }
}
