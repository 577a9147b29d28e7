import type { LRUCache } from 'lru-cache'
import { boundedCache, CACHE_LIMITS } from '../bounded-cache'
import { AppError } from '../errors'
import type { Recipient } from '../contract/recipient'

/** Asks the network which of these phone numbers have an account: phone digits → the chat id to send to. */
export type NumberLookup = (phones: string[]) => Promise<Map<string, string>>

export interface RecipientDirectoryOptions {
  /** Replaces the clock in tests. */
  now?: () => number
  /** How long a number not found stays refused (default CACHE_LIMITS.missingRecipientTtlMs). */
  missingTtlMs?: number
}

/** What the network answered for a number: its chat id, or null when it has no account. */
interface Answer {
  jid: string | null
}

/**
 * The chat id to send to for each recipient, checking phone numbers on the network first (a send to a
 * number without an account would "succeed" and go nowhere) and caching the answers per instance.
 */
export class RecipientDirectory {
  private readonly answers = new Map<string, LRUCache<string, Answer>>()
  private readonly pending = new Map<string, Promise<string | null>>()
  private readonly missingTtlMs: number

  constructor(private readonly options: RecipientDirectoryOptions = {}) {
    this.missingTtlMs = options.missingTtlMs ?? CACHE_LIMITS.missingRecipientTtlMs
  }

  /** The chat id for this recipient; recipient_not_found when a phone number has no account. */
  async resolve(instanceId: string, recipient: Recipient, lookup: NumberLookup): Promise<string> {
    if (recipient.kind !== 'phone') return recipient.jid
    const jid = await this.lookupPhone(instanceId, recipient.phone, lookup)
    if (!jid) {
      throw new AppError('recipient_not_found', `The number ${recipient.phone} is not on the network.`, {
        details: { parameter: 'number' },
      })
    }
    return jid
  }

  /** Drops what is known for an instance (it was relinked to another account or destroyed). */
  forget(instanceId: string): void {
    this.answers.delete(instanceId)
  }

  private async lookupPhone(instanceId: string, phone: string, lookup: NumberLookup): Promise<string | null> {
    const cached = this.answers.get(instanceId)?.get(phone)
    if (cached) return cached.jid
    const pendingKey = `${instanceId}\u0000${phone}`
    let request = this.pending.get(pendingKey)
    if (!request) {
      request = lookup([phone])
        .then((found) => {
          const jid = found.get(phone) ?? null
          this.remember(instanceId, phone, jid)
          return jid
        })
        .finally(() => this.pending.delete(pendingKey))
      this.pending.set(pendingKey, request)
    }
    return request
  }

  private remember(instanceId: string, phone: string, jid: string | null): void {
    let known = this.answers.get(instanceId)
    if (!known) {
      known = boundedCache<string, Answer>(CACHE_LIMITS.recipients, this.options.now)
      this.answers.set(instanceId, known)
    }
    known.set(phone, { jid }, jid ? {} : { ttl: this.missingTtlMs })
  }
}
