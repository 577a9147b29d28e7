import { createHmac, timingSafeEqual } from 'node:crypto'

/** The names of the headers sent with each delivery. */
export const WEBHOOK_HEADERS = {
  event: 'x-linkdesk-event',
  eventId: 'x-linkdesk-event-id',
  attempt: 'x-linkdesk-attempt',
  timestamp: 'x-linkdesk-timestamp',
  signature: 'x-linkdesk-signature',
} as const

/** `sha256=<hex HMAC-SHA256(secret, timestamp + "." + body)>`: the value of the signature header. */
export function signWebhook(secret: string, timestamp: string, body: string): string {
  return `sha256=${createHmac('sha256', secret).update(`${timestamp}.${body}`).digest('hex')}`
}

/** Whether a signature header matches the body and timestamp for this secret (constant-time comparison). */
export function verifyWebhookSignature(
  secret: string,
  timestamp: string,
  body: string,
  signature: string,
): boolean {
  const expected = Buffer.from(signWebhook(secret, timestamp, body))
  const given = Buffer.from(signature)
  return expected.length === given.length && timingSafeEqual(expected, given)
}
