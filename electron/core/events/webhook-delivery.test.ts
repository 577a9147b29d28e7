import assert from 'node:assert/strict'
import { test } from 'node:test'
import { DEFAULT_EVENT_SETTINGS } from './event-settings'
import { parseRetryAfter, retryDelayMs } from './webhook-delivery'
import { signWebhook, verifyWebhookSignature } from './webhook-signature'

test('Retry-After is read as seconds or as an HTTP date', () => {
  const now = Date.parse('2026-01-01T00:00:00Z')
  assert.equal(parseRetryAfter('120', now), 120_000)
  assert.equal(parseRetryAfter('Thu, 01 Jan 2026 00:00:30 GMT', now), 30_000)
  assert.equal(parseRetryAfter('soon', now), undefined)
  assert.equal(parseRetryAfter(null, now), undefined)
})

test('the retry delay doubles per attempt, stays under the cap and keeps half of it fixed', () => {
  const settings = { ...DEFAULT_EVENT_SETTINGS.webhook, backoffBaseMs: 1_000, backoffMaxMs: 60_000 }
  assert.equal(
    retryDelayMs(1, settings, () => 0),
    500,
  )
  assert.equal(
    retryDelayMs(1, settings, () => 1),
    1_000,
  )
  assert.equal(
    retryDelayMs(3, settings, () => 1),
    4_000,
  )
  assert.equal(
    retryDelayMs(30, settings, () => 1),
    60_000,
  )
  assert.equal(
    retryDelayMs(30, settings, () => 0),
    30_000,
  )
})

test('a signature verifies only with the same secret, timestamp and body', () => {
  const signature = signWebhook('whsec_a', '1700000000', '{"a":1}')
  assert.match(signature, /^sha256=[0-9a-f]{64}$/)
  assert.ok(verifyWebhookSignature('whsec_a', '1700000000', '{"a":1}', signature))
  assert.ok(!verifyWebhookSignature('whsec_b', '1700000000', '{"a":1}', signature))
  assert.ok(!verifyWebhookSignature('whsec_a', '1700000001', '{"a":1}', signature))
  assert.ok(!verifyWebhookSignature('whsec_a', '1700000000', '{"a":2}', signature))
  assert.ok(!verifyWebhookSignature('whsec_a', '1700000000', '{"a":1}', 'sha256=00'))
})
