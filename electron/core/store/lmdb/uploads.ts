import { mkdir, readFile, readdir, rm, stat, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { AppError } from '../../errors'
import {
  checkUploadId,
  declaredType,
  DEFAULT_TTL_MS,
  newUploadId,
  type StoredUpload,
  type Uploads,
} from '../uploads'

export interface UploadStoreOptions {
  /** How long an upload can be fetched, milliseconds, counted from its file's modification time. */
  ttlMs?: number
}

/**
 * Local files waiting to be sent (`uploads/` in the data folder): each under a random 128-bit id with the
 * type its uploader declared beside it, readable by the user only, fetchable until it expires, and swept
 * when the next one arrives.
 */
export class UploadStore implements Uploads {
  private readonly folder: string
  private readonly ttlMs: number

  constructor(dataDir: string, options: UploadStoreOptions = {}) {
    this.folder = join(dataDir, 'uploads')
    this.ttlMs = options.ttlMs ?? DEFAULT_TTL_MS
  }

  async save(data: Buffer, contentType: string | undefined): Promise<StoredUpload> {
    await mkdir(this.folder, { recursive: true, mode: 0o700 })
    await this.sweepExpired()
    const id = newUploadId()
    await writeFile(join(this.folder, id), data, { mode: 0o600 })
    await writeFile(join(this.folder, `${id}.type`), declaredType(contentType), { mode: 0o600 })
    return { id, size: data.length, expiresAt: Date.now() + this.ttlMs }
  }

  async read(id: string): Promise<{ data: Buffer; type: string }> {
    checkUploadId(id)
    const path = join(this.folder, id)
    const info = await stat(path).catch(() => undefined)
    if (!info || info.mtimeMs + this.ttlMs < Date.now()) throw new AppError('not_found')
    const type = await readFile(`${path}.type`, 'utf8').catch(() => 'application/octet-stream')
    return { data: await readFile(path), type }
  }

  private async sweepExpired(): Promise<void> {
    const cutoff = Date.now() - this.ttlMs
    for (const name of await readdir(this.folder)) {
      const path = join(this.folder, name)
      const info = await stat(path).catch(() => undefined)
      if (info && info.mtimeMs < cutoff) await rm(path, { force: true })
    }
  }
}
