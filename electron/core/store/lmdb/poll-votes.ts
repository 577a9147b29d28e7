import type { PollVoteRecords, StoredVote } from '../poll-votes'
import type { Database, RootDatabase } from './database'

type Key = [string, string, string]

/**
 * The votes in the LMDB environment, kept so that a running tally survives restarts and a changed vote
 * replaces the earlier one. Written synchronously: votes are rare, and the next one's tally must see this one.
 */
export class LmdbPollVotes implements PollVoteRecords {
  private readonly db: Database<Omit<StoredVote, 'voter'>, Key>

  constructor(root: RootDatabase) {
    this.db = root.openDB<Omit<StoredVote, 'voter'>, Key>({ name: 'poll-votes', encoding: 'msgpack' })
  }

  /** Every voter's latest vote (for copying the store elsewhere). */
  *export(): Generator<{ instanceId: string; pollId: string; vote: StoredVote }> {
    for (const { key, value } of this.db.getRange({}))
      yield {
        instanceId: key[0],
        pollId: key[1],
        vote: { voter: key[2], hashes: value.hashes, at: value.at },
      }
  }

  async replace(instanceId: string, pollId: string, { voter, hashes, at }: StoredVote) {
    this.db.putSync([instanceId, pollId, voter], { hashes, at })
    const votes: Array<Omit<StoredVote, 'at'>> = []
    for (const { key, value } of this.db.getRange({
      start: [instanceId, pollId],
      end: [instanceId, pollId, '\uffff'],
    })) {
      votes.push({ voter: key[2], hashes: value.hashes })
    }
    return votes
  }
}
