import { AppError, type ErrorCode, isAppError } from '../errors'
import { isOwn } from '../contract/ids'
import type { WaAccount, WaGroup, WaGroups } from '../contract/network'

/** The parts of a group update_group changes, in the order they are sent. */
export type GroupField = 'subject' | 'description' | 'only_admins_send' | 'only_admins_edit' | 'picture'

/** What became of one part of a change. */
export interface FieldResult {
  field: GroupField
  /** applied; refused by the network (code and message say why); not_sent after an earlier refusal. */
  result: 'applied' | 'refused' | 'not_sent'
  code?: ErrorCode
  message?: string
}

/** One checked value, and how it is sent. */
export interface GroupStep {
  field: GroupField
  send(groups: WaGroups, group: string): Promise<void>
}

/** Settings are the admins' alone; the group's info too while only admins edit it. */
function needsAdmin(field: GroupField, group: WaGroup): boolean {
  if (field === 'only_admins_send' || field === 'only_admins_edit') return true
  return group.restrict
}

/**
 * Checks the account's rights for every part against the group as the network describes it now, so a change
 * the network would refuse in part is refused whole before anything is sent.
 */
export function checkRights(group: WaGroup, account: WaAccount, steps: readonly GroupStep[]): void {
  const admin = group.participants.some((p) => p.role !== null && isOwn(p, account))
  if (admin) return
  const refused = steps.filter((step) => needsAdmin(step.field, group)).map((step) => step.field)
  if (refused.length === 0) return
  const results: FieldResult[] = steps.map(({ field }) =>
    refused.includes(field)
      ? { field, result: 'refused', code: 'not_group_admin', message: 'Only admins may change this.' }
      : { field, result: 'not_sent' },
  )
  throw new AppError(
    'not_group_admin',
    `Only the group's admins may change its ${refused.join(', ')}${group.restrict ? ' (only admins edit this group)' : ''}: nothing was changed.`,
    { details: { fields: refused, changed: [], results } },
  )
}

/**
 * Sends each part in turn and answers the parts changed. When the network refuses a part (rights changed
 * since the check), the rest is not sent: the error is the network's when nothing changed, else
 * group_change_incomplete; either way details.results says per part what was applied.
 */
export async function applySteps(
  groups: WaGroups,
  group: string,
  steps: readonly GroupStep[],
): Promise<string[]> {
  const changed: GroupField[] = []
  for (const [index, step] of steps.entries()) {
    try {
      await step.send(groups, group)
      changed.push(step.field)
    } catch (error) {
      const refusal = isAppError(error) ? error : new AppError('upstream_failed', undefined, { cause: error })
      const results: FieldResult[] = steps.map(({ field }, i) =>
        i < index
          ? { field, result: 'applied' }
          : i === index
            ? { field, result: 'refused', code: refusal.code, message: refusal.message }
            : { field, result: 'not_sent' },
      )
      const details = { ...refusal.details, group_id: group, changed, results }
      if (changed.length === 0) throw new AppError(refusal.code, refusal.message, { details, cause: error })
      const rest = steps.slice(index + 1).map((s) => s.field)
      throw new AppError(
        'group_change_incomplete',
        `Changed ${changed.join(', ')}; the network refused the ${step.field} (${refusal.message})` +
          (rest.length > 0 ? `, so ${rest.join(', ')} ${rest.length === 1 ? 'was' : 'were'} not sent.` : '.'),
        { details, cause: error },
      )
    }
  }
  return changed
}
