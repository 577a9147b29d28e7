import type { WebhookSettings } from '../contract/event-settings'
import type { AttemptOutcome, OutboxEntry } from '../store/event-store'
import { retryDelayMs, type AttemptResult } from './webhook-delivery'

/** An attempt that came to an end: the receiver (or broker) answered, or the attempt failed on its own. */
export type FinishedAttempt = Exclude<AttemptResult, { kind: 'aborted' }>

/** What the policy reads: the webhook settings, the clock, and the jitter's random source. */
export interface RetryPolicyDeps {
  settings: WebhookSettings
  now: () => number
  random: () => number
}

/** When a retry of this attempt may go: the backoff, or the receiver's Retry-After if that is later. */
export function retryAt(result: FinishedAttempt, attempt: number, deps: RetryPolicyDeps): number {
  const backoff = retryDelayMs(attempt, deps.settings, deps.random)
  const retryAfter = result.kind === 'retry' ? (result.retryAfterMs ?? 0) : 0
  return deps.now() + Math.max(backoff, retryAfter)
}

/**
 * What an attempt makes of its entry: delivered, failed (refused, or out of attempts or of age), or retrying.
 */
export function outcomeOf(
  result: FinishedAttempt,
  entry: OutboxEntry,
  attempt: number,
  deps: Omit<RetryPolicyDeps, 'random'>,
): AttemptOutcome {
  if (result.kind === 'delivered') return 'delivered'
  if (result.kind === 'reject') return 'failed'
  const tooOld = deps.now() - entry.enqueuedAt >= deps.settings.maxAgeMs
  return attempt >= deps.settings.maxAttempts || tooOld ? 'failed' : 'retrying'
}
