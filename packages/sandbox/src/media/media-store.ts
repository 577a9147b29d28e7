import { defineTable, type SandboxState, type StateTable } from '../state/sandbox-state'
import { sha256 } from './media-crypto'

const PATH_PATTERN = /\/sandbox_([A-Za-z0-9_-]+)\.enc/

/** How long the media host keeps an uploaded file by default: 30 days, as WhatsApp's servers do. */
export const DEFAULT_MEDIA_LIFETIME_MS = 30 * 86_400_000

/** Uploaded encrypted files, by the base64url SHA-256 of their bytes, with when the host forgets them. */
const MEDIA_UPLOADS = defineTable<{ file: Buffer; expiresAt: number }>({ name: 'media-uploads' })
/** The lifetime given to files uploaded from now on. */
const MEDIA_LIFETIME = defineTable<number>({ name: 'media-lifetime' })

/**
 * Encrypted media files, kept in the sandbox's state and addressed by the base64url SHA-256 of their bytes.
 * Each is forgotten its lifetime after its (latest) upload, as WhatsApp's media servers forget old files.
 */
export class MediaStore {
  private readonly files: StateTable<{ file: Buffer; expiresAt: number }>
  private readonly lifetime: StateTable<number>
  hostname = ''

  constructor(
    state: SandboxState,
    private readonly defaultLifetimeMs = DEFAULT_MEDIA_LIFETIME_MS,
  ) {
    this.files = state.open(MEDIA_UPLOADS)
    this.lifetime = state.open(MEDIA_LIFETIME)
  }

  /** How long files uploaded from now on are kept. */
  get lifetimeMs(): number {
    return this.lifetime.get('files') ?? this.defaultLifetimeMs
  }

  set lifetimeMs(ms: number) {
    this.lifetime.put('files', ms)
  }

  /** Stores an encrypted file (again: its lifetime starts anew); returns the direct path and URL a message carries. */
  put(file: Buffer): { directPath: string; url: string } {
    const token = sha256(file).toString('base64url')
    const expiresAt = Date.now() + this.lifetimeMs
    this.files.put(token, { file: this.files.get(token)?.file ?? file, expiresAt })
    // `oe` is when the URL stops working, in hex seconds, as on WhatsApp's media URLs.
    const oe = Math.floor(expiresAt / 1000).toString(16)
    const directPath = `/v/t62.7118-24/sandbox_${token}.enc?ccb=11-4&oe=${oe}`
    return { directPath, url: `https://${this.hostname}${directPath}` }
  }

  /** The stored file a direct path or URL refers to; a file past its lifetime is forgotten (undefined). */
  get(pathOrUrl: string | null | undefined): Buffer | undefined {
    const token = pathOrUrl ? PATH_PATTERN.exec(pathOrUrl)?.[1] : undefined
    const kept = token ? this.files.get(token) : undefined
    if (!token || !kept) return undefined
    if (Date.now() >= kept.expiresAt) {
      this.files.remove(token)
      return undefined
    }
    return kept.file
  }
}
