import type { Database, RootDatabase } from '../store/database'

/** One voter's latest vote on a poll: the option hashes it carried (base64) and when it came. */
interface StoredVote {
  hashes: string[]
  at: number
}

type Key = [string, string, string]

/** Each voter's latest vote on each poll of an instance. */
export interface PollVotes {
  /**
   * Records a voter's vote, replacing the earlier one, and resolves, once it is durable, to every voter's
   * latest vote on that poll (this one included).
   */
  record(
    instanceId: string,
    pollId: string,
    voter: string,
    hashes: readonly Uint8Array[],
  ): Promise<Array<{ voter: string; hashes: Uint8Array[] }>>
}

/**
 * The votes in the LMDB environment, kept so that a running tally survives restarts and a changed vote
 * replaces the earlier one. Written synchronously: votes are rare, and the next one's tally must see this one.
 */
export class LmdbPollVotes implements PollVotes {
  private readonly db: Database<StoredVote, Key>

  constructor(root: RootDatabase) {
    this.db = root.openDB<StoredVote, Key>({ name: 'poll-votes', encoding: 'msgpack' })
  }

  /** Every voter's latest vote (for copying the store elsewhere). */
  *export(): Generator<{ instanceId: string; pollId: string; voter: string; hashes: Uint8Array[] }> {
    for (const { key, value } of this.db.getRange({})) {
      const hashes = value.hashes.map((hash) => Buffer.from(hash, 'base64'))
      yield { instanceId: key[0], pollId: key[1], voter: key[2], hashes }
    }
  }

  /** Records a voter's vote, replacing the earlier one, and answers every voter's latest vote. */
  async record(
    instanceId: string,
    pollId: string,
    voter: string,
    hashes: readonly Uint8Array[],
  ): Promise<Array<{ voter: string; hashes: Uint8Array[] }>> {
    const encoded = hashes.map((hash) => Buffer.from(hash).toString('base64'))
    this.db.putSync([instanceId, pollId, voter], { hashes: encoded, at: Date.now() })
    const votes: Array<{ voter: string; hashes: Uint8Array[] }> = []
    for (const { key, value } of this.db.getRange({
      start: [instanceId, pollId],
      end: [instanceId, pollId, '\uffff'],
    })) {
      votes.push({ voter: key[2], hashes: value.hashes.map((hash) => Buffer.from(hash, 'base64')) })
    }
    return votes
  }
}
