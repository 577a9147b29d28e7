/** The events an instance produces, sent to its webhook and on the live stream. */
export const EVENT_NAMES = [
  'connection.update',
  'qr.update',
  'message.received',
  'message.sent',
  'message.status',
  'instance.updated',
  'instance.logged_out',
  'instance.destroyed',
  'webhook.test',
] as const

export type EventName = (typeof EVENT_NAMES)[number]

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
  emit(instanceId: string, event: EventName, data: Record<string, unknown>): LinkdeskEvent
}
