import type { EventDeliveryState, StoredEvent } from '../store/event-store'
import type { LinkdeskEvent } from '../contract/events'

/** An event as the API and the live stream show it. */
export type EventView = LinkdeskEvent & { delivery: EventDeliveryState }

/** The view of a stored event: the envelope plus its delivery summary, never the owner. */
export function eventView(stored: StoredEvent): EventView {
  return { ...stored.envelope, delivery: stored.delivery }
}
