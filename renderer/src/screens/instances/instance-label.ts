import type { InstanceSummary } from '../../api/types'

/** How a person recognizes an instance: its account's name and number, or that nothing is linked. */
export function instanceLabel(instance: InstanceSummary): string {
  const account = instance.account
  if (!account) return `Unlinked instance ${instance.instance_id.slice(0, 6)}…`
  return account.name ? `${account.name} (+${account.number})` : `+${account.number}`
}
