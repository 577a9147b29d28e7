import type { InstanceSummary } from '../../api/types'

const created: InstanceSummary[] = []

/**
 * Instances created in this window, remembered across screen changes: a server without the list operation
 * can show no others.
 */
export const createdHere = {
  list: (): InstanceSummary[] => [...created],
  add(instance: InstanceSummary): InstanceSummary[] {
    created.push(instance)
    return [...created]
  },
}
