import assert from 'node:assert/strict'
import { test } from 'node:test'
import { DEFAULT_EVENT_SETTINGS, type RetentionSettings } from '../contract/event-settings'
import { FAST_EVENT_SETTINGS, eventFixture } from '../testing/event-fixture'
import { WebhookReceiver, waitFor } from '../testing/webhook-receiver'

const DAY = 24 * 60 * 60_000

test('the retention sweep removes old events and attempts, keeps pending ones, and caps the count', async (t) => {
  const receiver = await WebhookReceiver.start(() => ({ status: 503 }))
  let now = Date.parse('2026-01-01T00:00:00Z')
  let retention: RetentionSettings = { ...DEFAULT_EVENT_SETTINGS.retention, maxAgeDays: 30 }
  const fixture = await eventFixture(
    {
      ...FAST_EVENT_SETTINGS,
      webhook: { ...FAST_EVENT_SETTINGS.webhook, backoffBaseMs: 3_600_000, backoffMaxMs: 3_600_000 },
    },
    undefined,
    { now: () => now, retention: () => retention },
  )
  t.after(async () => {
    await fixture.close()
    await receiver.close()
  })
  const { service } = fixture
  fixture.addInstance('OFF', null, false)
  fixture.addInstance('PENDING', receiver.url)
  const old = [1, 2, 3].map((n) => service.emit('OFF', 'message.received', { n }).event_id)
  const pending = service.emit('PENDING', 'message.received', {}).event_id
  await waitFor(
    async () =>
      (await service.reader.deliveries({ visible: () => true }, { limit: 5, order: 'asc' })).items.length ===
      1,
  )
  now += 20 * DAY
  const recent = [4, 5].map((n) => service.emit('OFF', 'message.received', { n }).event_id)
  now += 11 * DAY

  const swept = await service.sweep()
  assert.deepEqual(swept, { events: 3, deliveries: 1 })
  const left = async () =>
    (await service.reader.events({ visible: () => true }, { limit: 50, order: 'asc' })).items.map(
      (s) => s.envelope.event_id,
    )
  assert.deepEqual(await left(), [pending, ...recent])
  for (const id of old) assert.equal(await service.reader.event(id), undefined)
  assert.deepEqual(
    (await service.reader.events({ instanceId: 'OFF', visible: () => true }, { limit: 50, order: 'asc' }))
      .items.length,
    2,
  )

  retention = { ...retention, maxEvents: 2 }
  assert.equal((await service.sweep()).events, 1)
  assert.deepEqual(await left(), [pending, recent[1]])
})
