import type { MetricsProvider } from '../contract/metrics'
import { INSTANCE_STATES, type InstanceState } from '../contract/instance-state'

/** How many instances are in each state, for GET /api/v1/metrics (every state listed, zeros included). */
export function instanceMetricsProvider(
  instanceIds: () => string[],
  stateOf: (instanceId: string) => InstanceState,
): MetricsProvider {
  return {
    collect: () => {
      const counts = new Map<InstanceState, number>(INSTANCE_STATES.map((state) => [state, 0]))
      for (const id of instanceIds()) {
        const state = stateOf(id)
        counts.set(state, (counts.get(state) ?? 0) + 1)
      }
      return [
        {
          name: 'linkdesk_instances',
          help: 'Instances by state.',
          type: 'gauge',
          samples: [...counts].map(([state, value]) => ({ labels: { state }, value })),
        },
      ]
    },
  }
}
