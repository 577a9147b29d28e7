import { AppError } from '../errors'
import type { Database, RootDatabase } from '../store/database'
import { writeBatch } from '../store/write-batch'

interface LedgerEntry {
  fingerprint: string
  answer: unknown
  at: number
}

type Key = [string, string]

export interface IdempotencyLedgerOptions {
  /** How long a key is remembered. */
  ttlMs?: number
  now?: () => number
}

/**
 * Remembers, per instance and idempotency key, the answer of a send once its message has left, so a
 * client retrying the same request (after a timeout or a dropped connection) gets that answer back
 * instead of a second message. Kept in LMDB, so a restart between the two attempts changes nothing.
 */
export class IdempotencyLedger {
  private readonly db: Database<LedgerEntry, Key>
  private readonly inFlight = new Map<string, { fingerprint: string; promise: Promise<unknown> }>()
  private readonly ttlMs: number
  private readonly now: () => number

  constructor(root: RootDatabase, options: IdempotencyLedgerOptions = {}) {
    this.db = root.openDB<LedgerEntry, Key>({ name: 'send-idempotency', encoding: 'msgpack' })
    this.ttlMs = options.ttlMs ?? 24 * 60 * 60_000
    this.now = options.now ?? Date.now
  }

  /**
   * Runs `work` unless this key was used: then it answers what the first attempt answered (waiting for it
   * if still running). `work` calls `commit` with its answer as soon as the message has left; failures
   * before that are not remembered, so a retry tries again. Another request under a used key: conflict.
   */
  async run<T>(
    instanceId: string,
    key: string,
    fingerprint: string,
    work: (commit: (answer: T) => Promise<void>) => Promise<T>,
  ): Promise<T> {
    const memoryKey = `${instanceId}\u0000${key}`
    const running = this.inFlight.get(memoryKey)
    if (running) {
      this.assertSameRequest(running.fingerprint, fingerprint)
      return (await running.promise) as T
    }
    const stored = this.db.get([instanceId, key])
    if (stored && stored.at + this.ttlMs > this.now()) {
      this.assertSameRequest(stored.fingerprint, fingerprint)
      return stored.answer as T
    }
    const commit = async (answer: T) => {
      await this.db.put([instanceId, key], { fingerprint, answer, at: this.now() })
    }
    const promise = work(commit)
    this.inFlight.set(memoryKey, { fingerprint, promise })
    try {
      return await promise
    } finally {
      this.inFlight.delete(memoryKey)
    }
  }

  /** Forgets keys older than the TTL. */
  async sweep(): Promise<void> {
    const cutoff = this.now() - this.ttlMs
    await writeBatch(this.db, () => {
      for (const { key, value } of this.db.getRange()) if (value.at < cutoff) this.db.remove(key)
    })
  }

  private assertSameRequest(first: string, again: string): void {
    if (first === again) return
    throw new AppError(
      'conflict',
      'idempotency_key was already used for a different request: use a new key for a new message.',
      { details: { parameter: 'idempotency_key' } },
    )
  }
}
