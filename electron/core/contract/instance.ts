/** What an instance does on its own with what arrives; each off unless the operator turns it on, but ignore_status. */
export interface InstanceBehaviours {
  /** No group messages, reactions, votes, statuses or calls are surfaced as events. */
  ignore_groups: boolean
  /** Every incoming message is marked read (blue ticks) once it is kept. */
  auto_read: boolean
  /** The account shows online whenever the instance connects (the phone then gets no notifications). */
  always_online: boolean
  /** Contacts' status updates (stories) are not received at all; on by default, as before it existed. */
  ignore_status: boolean
}

export const BEHAVIOURS = ['ignore_groups', 'auto_read', 'always_online', 'ignore_status'] as const

export const DEFAULT_BEHAVIOURS: InstanceBehaviours = {
  ignore_groups: false,
  auto_read: false,
  always_online: false,
  ignore_status: true,
}
