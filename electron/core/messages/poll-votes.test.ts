import assert from 'node:assert/strict'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, test } from 'node:test'
import { openDatabase } from '../store/database'
import { PostgresPollVotes } from '../store/postgres/poll-votes'
import { postgresSuite } from '../store/testing/postgres-server'
import { LmdbPollVotes, type PollVotes } from './poll-votes'

const hash = (...bytes: number[]) => Uint8Array.from(bytes)
const plain = (votes: Array<{ voter: string; hashes: Uint8Array[] }>) =>
  votes
    .map(({ voter, hashes }) => [voter, hashes.map((each) => [...each])] as const)
    .sort(([a], [b]) => a.localeCompare(b))

/** The same test for each store; `votes` opens the store again (a restart) on the same storage. */
function pollVoteTests(name: string, votes: () => Promise<PollVotes>) {
  test(`${name}: each voter's latest vote counts, per poll, and survives a reopen`, async () => {
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

const dir = mkdtempSync(join(tmpdir(), 'linkdesk-votes-'))
const root = openDatabase(dir)
after(async () => {
  await root.close()
  rmSync(dir, { recursive: true, force: true })
})
pollVoteTests('lmdb', async () => new LmdbPollVotes(root))

postgresSuite('postgres', (pool) => pollVoteTests('postgres', async () => new PostgresPollVotes(pool())))
