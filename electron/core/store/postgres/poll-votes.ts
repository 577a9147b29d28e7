import type pg from 'pg'
import type { PollVotes } from '../../messages/poll-votes'
import { inTransaction } from './transaction'

/** Each voter's latest vote in PostgreSQL (`poll_votes`): a vote and the tally's read in one transaction. */
export class PostgresPollVotes implements PollVotes {
  constructor(private readonly pool: pg.Pool) {}

  record(
    instanceId: string,
    pollId: string,
    voter: string,
    hashes: readonly Uint8Array[],
  ): Promise<Array<{ voter: string; hashes: Uint8Array[] }>> {
    const encoded = hashes.map((hash) => Buffer.from(hash).toString('base64'))
    return inTransaction(this.pool, async (client) => {
      await client.query(
        `INSERT INTO poll_votes (instance_id, poll_id, voter, hashes, at) VALUES ($1, $2, $3, $4, $5)
         ON CONFLICT (instance_id, poll_id, voter) DO UPDATE SET hashes = EXCLUDED.hashes, at = EXCLUDED.at`,
        [instanceId, pollId, voter, encoded, Date.now()],
      )
      const { rows } = await client.query<{ voter: string; hashes: string[] }>(
        'SELECT voter, hashes FROM poll_votes WHERE instance_id = $1 AND poll_id = $2 ORDER BY voter',
        [instanceId, pollId],
      )
      return rows.map((row) => ({
        voter: row.voter,
        hashes: row.hashes.map((hash) => Buffer.from(hash, 'base64')),
      }))
    })
  }
}
