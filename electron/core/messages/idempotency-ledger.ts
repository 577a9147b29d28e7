import { AppError } from '../errors'
import type { Database, RootDatabase } from '../store/database'
import { writeBatch } from '../store/write-batch'

/** A key's record: its message id from before the send, and the answer once the message left. */
interface LedgerEntry {
  fingerprint: string
  messageId?: string
  answer?: unknown
  at: number
}

/** What a keyed send gets to do its work: the message id to send under, and where its answer goes. */
export interface LedgerSlot<T> {
  /**
   * The message id this key sends under, recorded (committed) before this resolves: the id an earlier
   * attempt recorded and never answered (it died mid-send; sending the same id again is still one message),
   * or a new one from `newId`.
   */
  messageId(newId: () => string): Promise<string>
  /** Records the answer, once the message has left. */
  commit(answer: T): Promise<void>
}

type Key = [string, string]

export interface IdempotencyLedgerOptions {
  /** How long a key is remembered. */
  ttlMs?: number
  now?: () => number
}

/**
 * Remembers, per instance and idempotency key, the message id a send goes out under (recorded before it
 * goes) and then its answer, so a client retrying the same request (after a timeout, a dropped connection or
 * a crash of the app) gets that answer back, or the same message id sent again, instead of a second message.
 * Kept in LMDB, so a restart between the two attempts changes nothing.
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
   * Runs `work` unless this key was answered: then it answers what the first attempt answered (waiting for
   * it if still running). `work` takes its message id from the slot before sending and commits its answer
   * once the message has left; an attempt that failed or died in between leaves the id, which the next
   * attempt sends under again. Another request under a used key: conflict.
   */
  async run<T>(
    instanceId: string,
    key: string,
    fingerprint: string,
    work: (slot: LedgerSlot<T>) => Promise<T>,
  ): Promise<T> {
    const memoryKey = `${instanceId}\u0000${key}`
    const running = this.inFlight.get(memoryKey)
    if (running) {
      this.assertSameRequest(running.fingerprint, fingerprint)
      return (await running.promise) as T
    }
    const stored = this.db.get([instanceId, key])
    const current = stored && stored.at + this.ttlMs > this.now() ? stored : undefined
    if (current) this.assertSameRequest(current.fingerprint, fingerprint)
    if (current?.answer !== undefined) return current.answer as T
    const slot: LedgerSlot<T> = {
      messageId: async (newId) => {
        if (current?.messageId) return current.messageId
        const messageId = newId()
        await this.db.put([instanceId, key], { fingerprint, messageId, at: this.now() })
        return messageId
      },
      commit: async (answer) => {
        const messageId = this.db.get([instanceId, key])?.messageId
        await this.db.put([instanceId, key], { fingerprint, messageId, answer, at: this.now() })
      },
    }
    const promise = work(slot)
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
