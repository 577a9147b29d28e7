import type { EventNameView } from '../../../electron/core/shared-types'

declare const __LINKDESK_EVENTS__: readonly { name: EventNameView; changesInstance: boolean }[]

/** The core's event catalogue as the build put it in (renderer/build-defines.ts): every event name, in order. */
export const EVENT_NAMES: readonly EventNameView[] = __LINKDESK_EVENTS__.map((event) => event.name)

const CHANGES_INSTANCE = new Set(
  __LINKDESK_EVENTS__.filter((event) => event.changesInstance).map((event) => event.name),
)

/** Whether, after this event, an instance's listed view (state, account, webhook, the list itself) differs. */
export function changesInstance(event: EventNameView): boolean {
  return CHANGES_INSTANCE.has(event)
}
