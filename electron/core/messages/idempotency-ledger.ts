import { AppError } from '../errors'
import type { LedgerRecords } from '../store/ledger-records'

/** What a keyed send gets to do its work: the message id to send under, and where its answer goes. */
export interface LedgerSlot<T> {
  /**
   * The message id this key sends under, recorded (committed) before this resolves: the id an earlier
   * attempt recorded and never answered (it died mid-send; sending the same id again is still one message),
   * or a new one from `newId`.
   */
  messageId(newId: () => string): Promise<string>
  /** Records the answer, once the network acknowledged the message (never before: a retry would claim it). */
  commit(answer: T): Promise<void>
}

export interface IdempotencyLedgerOptions {
  /** How long a key is remembered. */
  ttlMs?: number
  now?: () => number
}

/**
 * Remembers, per instance and idempotency key, the message id a send goes out under (recorded before it
 * goes) and then its answer, kept only once the network acknowledged the message; so a client retrying the
 * same request (after a timeout, a dropped connection or a crash of the app) gets that answer back, or the
 * same message id sent again (the network and the contact take it as the same message), never a second
 * message nor a success for one that never arrived. Kept in the store, so a restart between the two attempts
 * changes nothing.
 */
export class IdempotencyLedger {
  private readonly inFlight = new Map<string, { fingerprint: string; promise: Promise<unknown> }>()
  private readonly ttlMs: number
  private readonly now: () => number

  constructor(
    private readonly records: LedgerRecords,
    options: IdempotencyLedgerOptions = {},
  ) {
    this.ttlMs = options.ttlMs ?? 24 * 60 * 60_000
    this.now = options.now ?? Date.now
  }

  /**
   * Runs `work` unless this key was answered: then it answers what the first attempt answered (waiting for
   * it if still running). `work` takes its message id from the slot before sending and commits its answer
   * once the network acknowledged the message; an attempt that failed, died or was not acknowledged in
   * between leaves the id, which the next attempt sends under again. Another request under a used key:
   * conflict.
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
    // In flight from now on, before the first read: a retry arriving meanwhile waits for this attempt.
    const promise = this.attempt(instanceId, key, fingerprint, work)
    this.inFlight.set(memoryKey, { fingerprint, promise })
    try {
      return await promise
    } finally {
      this.inFlight.delete(memoryKey)
    }
  }

  /** Forgets keys older than the TTL. */
  async sweep(): Promise<void> {
    await this.records.removeBefore(this.now() - this.ttlMs)
  }

  private async attempt<T>(
    instanceId: string,
    key: string,
    fingerprint: string,
    work: (slot: LedgerSlot<T>) => Promise<T>,
  ): Promise<T> {
    const stored = await this.records.get(instanceId, key)
    const current = stored && stored.at + this.ttlMs > this.now() ? stored : undefined
    if (current) this.assertSameRequest(current.fingerprint, fingerprint)
    if (current?.answer !== undefined) return current.answer as T
    let messageId = current?.messageId
    const slot: LedgerSlot<T> = {
      messageId: async (newId) => {
        if (messageId) return messageId
        const id = newId()
        await this.records.put(instanceId, key, { fingerprint, messageId: id, at: this.now() })
        messageId = id
        return id
      },
      commit: async (answer) => {
        await this.records.put(instanceId, key, { fingerprint, messageId, answer, at: this.now() })
      },
    }
    return work(slot)
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
