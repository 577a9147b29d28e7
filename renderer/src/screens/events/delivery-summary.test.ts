import assert from 'node:assert/strict'
import { test } from 'node:test'
import type { DeliveryAttemptView } from '../../api/types'
import { deliveriesByWebhook, webhookDeliveryInWords, webhookHealth } from './delivery-summary'

let next = 0
const attempt = (fields: Partial<DeliveryAttemptView>): DeliveryAttemptView => ({
  delivery_id: `D${String((next += 1)).padStart(3, '0')}`,
  event_id: 'E1',
  instance_id: 'I1',
  webhook_id: null,
  event: 'message.received',
  attempt: 1,
  attempted_at: '2026-01-01T00:00:00.000Z',
  url: 'http://127.0.0.1:3000/own',
  status_code: null,
  latency_ms: 1,
  outcome: 'retrying',
  error: 'network error',
  ...fields,
})

test('each webhook’s newest attempt decides its status: four failed tries then a delivery read as delivered', () => {
  const attempts = [
    ...[1, 2, 3, 4].map((n) => attempt({ attempt: n })),
    attempt({
      attempt: 1,
      webhook_id: 'wh_a',
      url: 'http://127.0.0.1:3000/added',
      status_code: 400,
      error: null,
      outcome: 'failed',
    }),
    attempt({ attempt: 5, status_code: 200, error: null, outcome: 'delivered' }),
  ]
  const [own, added] = deliveriesByWebhook(attempts)
  assert.equal(own?.url, 'http://127.0.0.1:3000/own')
  assert.equal(webhookDeliveryInWords(own!), 'delivered after 5 attempts')
  assert.equal(added?.webhookId, 'wh_a')
  assert.equal(webhookDeliveryInWords(added!), 'failed, 1 attempt — HTTP 400')
  assert.equal(
    webhookDeliveryInWords(deliveriesByWebhook(attempts.slice(0, 4))[0]!),
    'pending, 4 attempts — network error',
  )
})

test('a webhook fails since the first of its attempts not delivered after its last delivery', () => {
  assert.equal(webhookHealth([]).state, 'no attempts')
  const ok = attempt({ attempted_at: '2026-01-01T10:00:00.000Z', outcome: 'delivered', status_code: 200 })
  assert.deepEqual(webhookHealth([ok]), { state: 'healthy', lastError: null, failingSince: null })
  const failures = [
    attempt({ attempted_at: '2026-01-01T10:01:00.000Z' }),
    attempt({ attempted_at: '2026-01-01T10:02:00.000Z', status_code: 400, error: null, outcome: 'failed' }),
  ]
  assert.deepEqual(webhookHealth([ok, ...failures]), {
    state: 'failing',
    lastError: 'HTTP 400',
    failingSince: '2026-01-01T10:01:00.000Z',
  })
})
