import assert from 'node:assert/strict'
import { test } from 'node:test'
import { LmdbPollVotes } from './lmdb/poll-votes'
import { type PollVoteRecords, PollVoteTally, type PollVotes } from './poll-votes'
import { PostgresPollVotes } from './postgres/poll-votes'
import { eachBackend, openOn, type PerBackend } from '../testing/backends'

const records: PerBackend<PollVoteRecords> = {
  lmdb: ({ db }) => new LmdbPollVotes(db),
  postgres: ({ pool }) => new PostgresPollVotes(pool),
}

const hash = (...bytes: number[]) => Uint8Array.from(bytes)
const plain = (votes: Array<{ voter: string; hashes: Uint8Array[] }>) =>
  votes
    .map(({ voter, hashes }) => [voter, hashes.map((each) => [...each])] as const)
    .sort(([a], [b]) => a.localeCompare(b))

/** The same test for each store; `open` takes fresh storage and answers `votes`, which opens the store again (a restart) on it. */
function pollVoteTests(name: string, open: () => Promise<() => Promise<PollVotes>>) {
  test(`${name}: each voter's latest vote counts, per poll, and survives a reopen`, async () => {
    const votes = await open()
    const store = await votes()
    assert.deepEqual(plain(await store.record('i1', 'P1', 'alice', [hash(1, 2)])), [['alice', [[1, 2]]]])
    await store.record('i1', 'P1', 'bob', [hash(3)])
    await store.record('i1', 'P2', 'alice', [hash(9)])
    await store.record('i2', 'P1', 'carol', [hash(7)])
    // Alice changes her vote on P1: it replaces the earlier one, and the tally has both voters once.
    const tally = await (await votes()).record('i1', 'P1', 'alice', [hash(4), hash(5)])
    assert.deepEqual(plain(tally), [
      ['alice', [[4], [5]]],
      ['bob', [[3]]],
    ])
    assert.deepEqual(plain(await (await votes()).record('i1', 'P1', 'bob', [])), [
      ['alice', [[4], [5]]],
      ['bob', []],
    ])
  })
}

eachBackend((backend) =>
  pollVoteTests(backend.kind, async () => {
    let storage = await backend.fresh()
    return async () => {
      storage = await backend.restart(storage)
      return new PollVoteTally(openOn(storage, records))
    }
  }),
)
