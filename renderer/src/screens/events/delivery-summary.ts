import type { DeliveryAttemptView } from '../../api/types'

/** Where an event stands with one webhook, as its newest attempt says. */
export interface WebhookDelivery {
  /** The added webhook's id; null: the instance's own. */
  webhookId: string | null
  url: string
  status: 'delivered' | 'pending' | 'failed'
  attempts: number
  /** The newest attempt's error or HTTP status when it was not delivered. */
  lastError: string | null
}

/**
 * The event's delivery per webhook, from its attempts (oldest first): each webhook's newest attempt decides
 * (retrying: pending), and its attempts are counted from the newest delivery's first (a redelivery restarts at 1).
 */
export function deliveriesByWebhook(attempts: readonly DeliveryAttemptView[]): WebhookDelivery[] {
  const byWebhook = new Map<string, WebhookDelivery>()
  for (const attempt of attempts) {
    const key = attempt.webhook_id ?? 'own'
    byWebhook.set(key, {
      webhookId: attempt.webhook_id,
      url: attempt.url,
      status: attempt.outcome === 'retrying' ? 'pending' : attempt.outcome,
      attempts: attempt.attempt,
      lastError:
        attempt.outcome === 'delivered'
          ? null
          : attempt.status_code === null
            ? (attempt.error ?? 'no answer')
            : `HTTP ${attempt.status_code}`,
    })
  }
  return [...byWebhook.values()]
}

/** One webhook's delivery in words: "delivered after 5 attempts", "failed, 1 attempt — HTTP 400". */
export function webhookDeliveryInWords(delivery: WebhookDelivery): string {
  const attempts = `${delivery.attempts} attempt${delivery.attempts === 1 ? '' : 's'}`
  if (delivery.status === 'delivered')
    return delivery.attempts === 1 ? 'delivered' : `delivered after ${attempts}`
  return `${delivery.status}, ${attempts}${delivery.lastError ? ` — ${delivery.lastError}` : ''}`
}

/** How a webhook fares, from its attempts (oldest first): its newest attempt, and since when it fails. */
export interface WebhookHealth {
  state: 'no attempts' | 'healthy' | 'failing'
  /** The newest attempt's error or HTTP status when it was not delivered. */
  lastError: string | null
  /** When the run of attempts not delivered, up to the newest, began (ISO 8601); null when healthy. */
  failingSince: string | null
}

export function webhookHealth(attempts: readonly DeliveryAttemptView[]): WebhookHealth {
  const newest = attempts.at(-1)
  if (!newest) return { state: 'no attempts', lastError: null, failingSince: null }
  if (newest.outcome === 'delivered') return { state: 'healthy', lastError: null, failingSince: null }
  let first = attempts.length - 1
  while (first > 0 && attempts[first - 1]?.outcome !== 'delivered') first -= 1
  return {
    state: 'failing',
    lastError: newest.status_code === null ? (newest.error ?? 'no answer') : `HTTP ${newest.status_code}`,
    failingSince: attempts[first]?.attempted_at ?? newest.attempted_at,
  }
}
