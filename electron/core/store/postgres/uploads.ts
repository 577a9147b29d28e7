import type pg from 'pg'
import { KeptUploads, type StoredUpload } from '../uploads'

/** Uploads in PostgreSQL (`uploads`): any node can serve a file another node took; expired ones are swept. */
export class PostgresUploads extends KeptUploads {
  constructor(
    private readonly pool: pg.Pool,
    ttlMs?: number,
  ) {
    super(ttlMs)
  }

  protected async keep(upload: StoredUpload, type: string, data: Buffer, now: number): Promise<void> {
    await this.pool.query('DELETE FROM uploads WHERE expires_at < $1', [now])
    await this.pool.query(
      'INSERT INTO uploads (id, content_type, data, expires_at) VALUES ($1, $2, $3, $4)',
      [upload.id, type, data, upload.expiresAt],
    )
  }

  protected async find(id: string, now: number): Promise<{ data: Buffer; type: string } | undefined> {
    const { rows } = await this.pool.query<{ data: Buffer; content_type: string }>(
      'SELECT data, content_type FROM uploads WHERE id = $1 AND expires_at >= $2',
      [id, now],
    )
    const found = rows[0]
    return found && { data: found.data, type: found.content_type }
  }
}
