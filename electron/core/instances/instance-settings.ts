import { AppError } from '../errors'
import { DEFAULT_BEHAVIOURS, type InstanceBehaviours } from '../contract/instance'
import type { InstanceRecord } from '../store/settings-store'

export const INSTANCE_NAME_CHARS = 100

/** An instance's name: free text an operator recognises, trimmed; names need not be unique. */
export function instanceName(value: string): string {
  const name = value.trim()
  if (!name || name.length > INSTANCE_NAME_CHARS || /\p{Cc}/u.test(name)) {
    throw new AppError(
      'invalid_parameter',
      `name must be 1 to ${INSTANCE_NAME_CHARS} characters, without control characters.`,
      { details: { parameter: 'name' } },
    )
  }
  return name
}

export function behavioursOf(record: InstanceRecord | undefined): InstanceBehaviours {
  return { ...DEFAULT_BEHAVIOURS, ...record?.behaviours }
}
