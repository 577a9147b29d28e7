import { boundedCache, CACHE_LIMITS } from '../bounded-cache'
import { AppError } from '../errors'

interface Waiter {
  resolve(): void
  reject(error: AppError): void
  timer: NodeJS.Timeout
}

type Outcome = { ok: true } | { ok: false; errorCode: string | null; chat: string }

/**
 * Lets a send wait for the network's acknowledgement of its message id: resolved by the server's ack (or any
 * later receipt), rejected by an error ack, upstream_timeout when neither comes in time.
 */
export class AckTracker {
  private readonly waiters = new Map<string, Waiter>()
  /** Answers that came before anyone waited for them. */
  private readonly early = boundedCache<string, Outcome>(CACHE_LIMITS.earlyAcks)

  /** Records the network's answer for a message; `remember` keeps it for a send that is not waiting yet. */
  settle(instanceId: string, id: string, outcome: Outcome, remember = true): void {
    const key = `${instanceId}\u0000${id}`
    const waiter = this.waiters.get(key)
    if (!waiter) {
      if (remember && !this.early.has(key)) this.early.set(key, outcome)
      return
    }
    this.waiters.delete(key)
    clearTimeout(waiter.timer)
    if (outcome.ok) waiter.resolve()
    else waiter.reject(rejected(outcome))
  }

  /** Resolves once the message is acknowledged. */
  wait(instanceId: string, id: string, timeoutMs: number): Promise<void> {
    const key = `${instanceId}\u0000${id}`
    const known = this.early.get(key)
    if (known) {
      this.early.delete(key)
      return known.ok ? Promise.resolve() : Promise.reject(rejected(known))
    }
    return new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.waiters.delete(key)
        reject(
          new AppError(
            'upstream_timeout',
            `The message was written but the network did not acknowledge it within ${Math.round(timeoutMs / 1000)} s, ` +
              'so it may not have arrived; it is sent again on the next connection: watch message.status events ' +
              'for its fate (sent, or failed), and retry with the same idempotency_key to avoid a duplicate.',
            { details: { message_id: id } },
          ),
        )
      }, timeoutMs)
      this.waiters.set(key, { resolve, reject, timer })
    })
  }

  /** Rejects every waiter (core shutdown). */
  close(): void {
    for (const waiter of this.waiters.values()) {
      clearTimeout(waiter.timer)
      waiter.reject(new AppError('unavailable'))
    }
    this.waiters.clear()
    this.early.clear()
  }
}

/** The network refuses a group message from a member who is not admin where only admins send. */
const NOT_ADMIN = '403'

function rejected({ errorCode, chat }: { errorCode: string | null; chat: string }): AppError {
  if (errorCode === NOT_ADMIN && chat.endsWith('@g.us')) {
    return new AppError('not_group_admin', 'Only admins send to this group, and this account is not one.', {
      details: { network_error: errorCode },
    })
  }
  return new AppError(
    'upstream_failed',
    `The network refused the message${errorCode ? ` (error ${errorCode})` : ''}.`,
    { details: errorCode ? { network_error: errorCode } : undefined },
  )
}
