import type { EventData, EventName } from './event-catalogue'

/** The one envelope every event has (design §6). */
export interface LinkdeskEvent {
  event: EventName
  event_id: string
  instance_id: string
  /** Unix seconds, as a string. */
  timestamp: string
  data: Record<string, unknown>
}

/** Where producers (instances, messages) hand events; the events part stores and delivers them. */
export interface EventSink {
  emit<E extends EventName>(instanceId: string, event: E, data: EventData<E>): LinkdeskEvent
}
