import { defineTable, type SandboxState, type StateTable } from '../state/sandbox-state'
import { sha256 } from './media-crypto'

const PATH_PATTERN = /\/sandbox_([A-Za-z0-9_-]+)\.enc/

/** Uploaded encrypted files, by the base64url SHA-256 of their bytes. */
const MEDIA_FILES = defineTable<Buffer>({ name: 'media-files' })

/** Encrypted media files, kept in the sandbox's state and addressed by the base64url SHA-256 of their bytes. */
export class MediaStore {
  private readonly files: StateTable<Buffer>
  hostname = ''

  constructor(state: SandboxState) {
    this.files = state.open(MEDIA_FILES)
  }

  /** Stores an encrypted file; returns the direct path and full URL a message carries. */
  put(file: Buffer): { directPath: string; url: string } {
    const token = sha256(file).toString('base64url')
    if (!this.files.get(token)) this.files.put(token, file)
    const directPath = `/v/t62.7118-24/sandbox_${token}.enc?ccb=11-4&oe=FFFFFFFF`
    return { directPath, url: `https://${this.hostname}${directPath}` }
  }

  /** The stored file a direct path or URL refers to. */
  get(pathOrUrl: string | null | undefined): Buffer | undefined {
    const token = pathOrUrl ? PATH_PATTERN.exec(pathOrUrl)?.[1] : undefined
    return token ? this.files.get(token) : undefined
  }
}
