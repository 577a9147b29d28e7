import type pg from 'pg'
import type { PollVoteRecords, StoredVote } from '../poll-votes'
import { inTransaction } from './transaction'
import { claimInTransaction, type WriteFence } from './write-fence'

/**
 * Each voter's latest vote in PostgreSQL (`poll_votes`): a vote and the tally's read in one transaction, behind
 * the fence in a cluster.
 */
export class PostgresPollVotes implements PollVoteRecords {
  constructor(
    private readonly pool: pg.Pool,
    private readonly fence?: WriteFence,
  ) {}

  replace(instanceId: string, pollId: string, { voter, hashes, at }: StoredVote) {
    return inTransaction(this.pool, async (client) => {
      await claimInTransaction(client, this.fence, [instanceId])
      await client.query(
        `INSERT INTO poll_votes (instance_id, poll_id, voter, hashes, at) VALUES ($1, $2, $3, $4, $5)
         ON CONFLICT (instance_id, poll_id, voter) DO UPDATE SET hashes = EXCLUDED.hashes, at = EXCLUDED.at`,
        [instanceId, pollId, voter, hashes, at],
      )
      const { rows } = await client.query<{ voter: string; hashes: string[] }>(
        'SELECT voter, hashes FROM poll_votes WHERE instance_id = $1 AND poll_id = $2 ORDER BY voter',
        [instanceId, pollId],
      )
      return rows
    })
  }
}
