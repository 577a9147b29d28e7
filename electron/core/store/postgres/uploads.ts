import type pg from 'pg'
import { AppError } from '../../errors'
import {
  checkUploadId,
  declaredType,
  DEFAULT_TTL_MS,
  newUploadId,
  type StoredUpload,
  type Uploads,
} from '../uploads'

/** Uploads in PostgreSQL (`uploads`): any node can serve a file another node took; expired ones are swept. */
export class PostgresUploads implements Uploads {
  constructor(
    private readonly pool: pg.Pool,
    private readonly ttlMs = DEFAULT_TTL_MS,
  ) {}

  async save(data: Buffer, contentType: string | undefined): Promise<StoredUpload> {
    const now = Date.now()
    await this.pool.query('DELETE FROM uploads WHERE expires_at < $1', [now])
    const upload = { id: newUploadId(), size: data.length, expiresAt: now + this.ttlMs }
    await this.pool.query(
      'INSERT INTO uploads (id, content_type, data, expires_at) VALUES ($1, $2, $3, $4)',
      [upload.id, declaredType(contentType), data, upload.expiresAt],
    )
    return upload
  }

  async read(id: string): Promise<{ data: Buffer; type: string }> {
    checkUploadId(id)
    const { rows } = await this.pool.query<{ data: Buffer; content_type: string }>(
      'SELECT data, content_type FROM uploads WHERE id = $1 AND expires_at >= $2',
      [id, Date.now()],
    )
    const found = rows[0]
    if (!found) throw new AppError('not_found')
    return { data: found.data, type: found.content_type }
  }
}
