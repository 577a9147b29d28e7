import assert from 'node:assert/strict'
import { test } from 'node:test'
import { MetricsRegistry } from './metrics'

test('providers are rendered together in the Prometheus text format, families merged by name', () => {
  const registry = new MetricsRegistry()
  registry.register({
    collect: () => [
      {
        name: 'linkdesk_instances',
        help: 'Instances by state.',
        type: 'gauge',
        samples: [{ labels: { state: 'qr' }, value: 1 }],
      },
    ],
  })
  const remove = registry.register({
    collect: () => [
      {
        name: 'linkdesk_instances',
        help: 'ignored',
        type: 'gauge',
        samples: [{ labels: { state: 'say "hi"\n' }, value: 2 }],
      },
      {
        name: 'linkdesk_messages_sent_total',
        help: 'Messages sent.',
        type: 'counter',
        samples: [{ value: 7 }],
      },
    ],
  })
  assert.equal(
    registry.render(),
    [
      '# HELP linkdesk_instances Instances by state.',
      '# TYPE linkdesk_instances gauge',
      'linkdesk_instances{state="qr"} 1',
      'linkdesk_instances{state="say \\"hi\\"\\n"} 2',
      '# HELP linkdesk_messages_sent_total Messages sent.',
      '# TYPE linkdesk_messages_sent_total counter',
      'linkdesk_messages_sent_total 7',
      '',
    ].join('\n'),
  )
  remove()
  assert.doesNotMatch(registry.render(), /messages_sent/)
})
