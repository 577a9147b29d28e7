import type pg from 'pg'
import { nodeLeaseLost, type WriteFence } from '../../contract/coordination'
import { KeptUploads, type StoredUpload } from '../uploads'

/**
 * Uploads in PostgreSQL (`uploads`): any node can serve a file another node took; expired ones are swept. In a
 * cluster an upload (and its sweep) is written only while this node's lease holds: one statement checks the
 * lease on the database's clock, so a node paused past its lease writes nothing.
 */
export class PostgresUploads extends KeptUploads {
  constructor(
    private readonly pool: pg.Pool,
    private readonly fence?: WriteFence,
    ttlMs?: number,
  ) {
    super(ttlMs)
  }

  protected async keep(upload: StoredUpload, type: string, data: Buffer, now: number): Promise<void> {
    const node = this.fence?.node()
    const { rowCount } = await this.pool.query(
      `WITH live AS (SELECT $6::text IS NULL OR EXISTS (
                       SELECT 1 FROM nodes WHERE id = $6 AND expires_at > now() FOR KEY SHARE) AS holds),
            swept AS (DELETE FROM uploads WHERE expires_at < $1 AND (SELECT holds FROM live))
       INSERT INTO uploads (id, content_type, data, expires_at)
       SELECT $2, $3, $4, $5 FROM live WHERE holds`,
      [now, upload.id, type, data, upload.expiresAt, node ?? null],
    )
    if (rowCount !== 1) throw nodeLeaseLost(node ?? '')
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
