/** A vote as the services see it: who voted, and the option hashes the vote carried. */
export interface PollVote {
  voter: string
  hashes: Uint8Array[]
}

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
  ): Promise<PollVote[]>
}

/** One voter's latest vote on a poll, as a backend keeps it: the option hashes (base64) and when it came. */
export interface StoredVote {
  voter: string
  hashes: string[]
  at: number
}

/** What a backend keeps of the votes: rows only; PollVoteTally encodes and decodes them. */
export interface PollVoteRecords {
  /**
   * Puts the voter's vote in place of the earlier one and resolves, once it is durable, to every voter's vote
   * on that poll (this one included), read so that a vote recorded at the same time is never missed.
   */
  replace(instanceId: string, pollId: string, vote: StoredVote): Promise<Array<Omit<StoredVote, 'at'>>>
}

/**
 * The poll votes of any backend: a vote is kept with its hashes in base64 and the time it came, and the
 * answer is every voter's latest vote, decoded.
 */
export class PollVoteTally implements PollVotes {
  constructor(
    private readonly records: PollVoteRecords,
    private readonly now: () => number = Date.now,
  ) {}

  async record(
    instanceId: string,
    pollId: string,
    voter: string,
    hashes: readonly Uint8Array[],
  ): Promise<PollVote[]> {
    const encoded = hashes.map((hash) => Buffer.from(hash).toString('base64'))
    const votes = await this.records.replace(instanceId, pollId, { voter, hashes: encoded, at: this.now() })
    return votes.map((vote) => ({
      voter: vote.voter,
      hashes: vote.hashes.map((hash) => Buffer.from(hash, 'base64')),
    }))
  }
}
