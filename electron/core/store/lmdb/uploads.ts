import { mkdir, readFile, readdir, rm, stat, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { KeptUploads, type StoredUpload } from '../uploads'

export interface UploadStoreOptions {
  /** How long an upload can be fetched, milliseconds, counted from its file's modification time. */
  ttlMs?: number
}

/**
 * Local files waiting to be sent (`uploads/` in the data folder): each under a random 128-bit id with the
 * type its uploader declared beside it, readable by the user only, fetchable until it expires, and swept
 * when the next one arrives.
 */
export class UploadStore extends KeptUploads {
  private readonly folder: string

  constructor(dataDir: string, options: UploadStoreOptions = {}) {
    super(options.ttlMs)
    this.folder = join(dataDir, 'uploads')
  }

  protected async keep(upload: StoredUpload, type: string, data: Buffer, now: number): Promise<void> {
    await mkdir(this.folder, { recursive: true, mode: 0o700 })
    await this.sweepExpired(now)
    await writeFile(join(this.folder, upload.id), data, { mode: 0o600 })
    await writeFile(join(this.folder, `${upload.id}.type`), type, { mode: 0o600 })
  }

  protected async find(id: string, now: number): Promise<{ data: Buffer; type: string } | undefined> {
    const path = join(this.folder, id)
    const info = await stat(path).catch(() => undefined)
    if (!info || info.mtimeMs + this.ttlMs < now) return undefined
    const type = await readFile(`${path}.type`, 'utf8').catch(() => 'application/octet-stream')
    return { data: await readFile(path), type }
  }

  private async sweepExpired(now: number): Promise<void> {
    const cutoff = now - this.ttlMs
    for (const name of await readdir(this.folder)) {
      const path = join(this.folder, name)
      const info = await stat(path).catch(() => undefined)
      if (info && info.mtimeMs < cutoff) await rm(path, { force: true })
    }
  }
}
