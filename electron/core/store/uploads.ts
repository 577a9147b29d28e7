import { randomBytes } from 'node:crypto'
import { AppError } from '../errors'

/** A stored upload: its id (the capability to fetch it), size in bytes, and when it expires (ms). */
export interface StoredUpload {
  id: string
  size: number
  expiresAt: number
}

const DEFAULT_TTL_MS = 60 * 60_000
const UPLOAD_ID = /^[A-Za-z0-9_-]{22}$/

/** Files uploaded for later sends: each under a random 128-bit id, fetchable until it expires. */
export interface Uploads {
  /** Stores a file and its declared content type (anything odd is kept as a plain file). */
  save(data: Buffer, contentType: string | undefined): Promise<StoredUpload>
  /** The file and its type while it has not expired; not_found for an unknown, malformed or expired id. */
  read(id: string): Promise<{ data: Buffer; type: string }>
}

/** A new upload id (the capability to fetch it). */
function newUploadId(): string {
  return randomBytes(16).toString('base64url')
}

/** Refuses an id that cannot be an upload's (not_found, as for an unknown one). */
function checkUploadId(id: string): void {
  if (!UPLOAD_ID.test(id)) throw new AppError('not_found')
}

/** The type the uploader declared, served back so the media fetcher can use it; anything odd is a plain file. */
function declaredType(header: string | undefined): string {
  const type = (header ?? '').split(';')[0]!.trim().toLowerCase()
  return /^[a-z0-9.+-]+\/[a-z0-9.+-]+$/.test(type) ? type : 'application/octet-stream'
}

/**
 * What every store's uploads share: the id, the declared type, the expiry and the refusals. A store says only
 * how it keeps an upload and how it finds one that has not expired.
 */
export abstract class KeptUploads implements Uploads {
  /** How long an upload can be fetched, milliseconds. */
  protected readonly ttlMs: number

  constructor(ttlMs: number | undefined) {
    this.ttlMs = ttlMs ?? DEFAULT_TTL_MS
  }

  async save(data: Buffer, contentType: string | undefined): Promise<StoredUpload> {
    const now = Date.now()
    const upload = { id: newUploadId(), size: data.length, expiresAt: now + this.ttlMs }
    await this.keep(upload, declaredType(contentType), data, now)
    return upload
  }

  async read(id: string): Promise<{ data: Buffer; type: string }> {
    checkUploadId(id)
    const found = await this.find(id, Date.now())
    if (!found) throw new AppError('not_found')
    return found
  }

  /** Keeps a new upload and its declared type, sweeping those expired at `now`. */
  protected abstract keep(upload: StoredUpload, type: string, data: Buffer, now: number): Promise<void>

  /** The file and its type, unless it is unknown or expired at `now`. */
  protected abstract find(id: string, now: number): Promise<{ data: Buffer; type: string } | undefined>
}
