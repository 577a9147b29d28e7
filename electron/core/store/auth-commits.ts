import { CommitHold, type HeldWrites } from './commit-hold'
import type { KeyBatch } from './auth-store'

/** Uncommitted writes an instance may have queued before its writers wait for the store. */
const MAX_QUEUED = 64

/**
 * The commits of one instance's auth store, whichever backend makes them: how many are queued, whether one
 * failed (the store's memory is then ahead of what is durable, and it takes no more writes), what a
 * decryption holds back (see CommitHold), and the promises `committed`, `durable` and `settled` answer.
 */
export class AuthCommits {
  private readonly hold = new CommitHold()
  /** Every commit asked for so far. */
  private all: Promise<unknown> = Promise.resolve()
  /** Every commit asked for so far that no hold held back. */
  private free: Promise<unknown> = Promise.resolve()
  private queued = 0
  private failure: unknown

  /** Throws once a commit failed or was dropped: the store must not take writes on a memory ahead of it. */
  assertWritable(): void {
    if (this.failure !== undefined)
      throw new Error('an earlier write of this auth store failed', { cause: this.failure })
  }

  /**
   * Commits the write of `keys` now, or at the release of the hold it belongs to (`holdable` false: it never
   * depends on what a holder keeps: the credentials, new pre-keys); `onCommitted` runs once it is made. Past
   * MAX_QUEUED uncommitted writes the caller waits for the commits not held back, so a writer faster than the
   * store cannot grow the queue without bound (held ones wait for their holder, who may be this writer).
   */
  async add(
    keys: readonly string[],
    holdable: boolean,
    commit: () => Promise<unknown>,
    onCommitted: () => void,
  ): Promise<void> {
    this.queued += 1
    const { held, committed } = this.hold.run(keys, holdable, commit)
    const tracked = committed.then(
      () => {
        this.queued -= 1
        onCommitted()
      },
      (error: unknown) => {
        this.queued -= 1
        this.failure ??= error
      },
    )
    this.all = Promise.all([this.all, tracked])
    if (!held) this.free = Promise.all([this.free, tracked])
    if (this.queued > MAX_QUEUED) await this.unheld()
  }

  /** See InstanceAuthStore.holdWrites. */
  holdWrites(): HeldWrites {
    return this.hold.hold()
  }

  get holding(): boolean {
    return this.hold.active
  }

  /** Whether no commit failed or was dropped. */
  get sound(): boolean {
    return this.failure === undefined
  }

  /** Resolves once every commit asked for so far is settled (made, failed or dropped). */
  committed(): Promise<unknown> {
    return this.all
  }

  /** Resolves once no hold is on and every commit asked for so far is settled. */
  async settled(): Promise<void> {
    await this.hold.released()
    await this.all
  }

  /** Resolves once every commit not held back is made; rejects if one failed or was refused. */
  async durable(): Promise<void> {
    await this.unheld()
    if (this.failure !== undefined)
      throw new Error('a write of this auth store failed', { cause: this.failure })
  }

  /** Releases every hold (the store is closing) and waits for every commit. */
  async close(): Promise<void> {
    this.hold.releaseAll()
    await this.all
  }

  /** Every commit no hold holds back now: all of them when none is on. */
  private unheld(): Promise<unknown> {
    return this.hold.active ? this.free : this.all
  }
}

/**
 * Whether a key batch may be held with a decryption: not when it only adds pre-keys. Those are uploaded once
 * written (a retry receipt made inside a held decryption carries one), and no message depends on them: held
 * and then dropped, the network would hand out pre-keys this store no longer has.
 */
export function holdable(batch: KeyBatch): boolean {
  return !Object.entries(batch).every(
    ([type, values]) =>
      type === 'pre-key' &&
      Object.values(values ?? {}).every((value) => value !== null && value !== undefined),
  )
}
