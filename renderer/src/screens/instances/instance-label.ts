import type { InstanceSummary } from '../../api/types'

/**
 * How a person recognizes an instance: the name its operator gave it, then its account's name and number,
 * or that nothing is linked.
 */
export function instanceLabel(instance: InstanceSummary): string {
  const account = instance.account
  const linked = account
    ? account.name
      ? `${account.name} (+${account.number})`
      : `+${account.number}`
    : `Unlinked instance ${instance.instance_id.slice(0, 6)}…`
  return instance.name ? `${instance.name}: ${linked}` : linked
}
