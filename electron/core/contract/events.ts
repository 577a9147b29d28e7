import type { EventData, EventName } from './event-catalogue'

/** The one envelope every event has (design §6). */
export interface LinkdeskEvent {
  event: EventName
  event_id: string
  instance_id: string
  /** The instance's name when the event was made (create_instance, update_instance); null: none given. */
  instance_name?: string | null
  /** Unix seconds, as a string. */
  timestamp: string
  data: Record<string, unknown>
}

/** The events that announce one network message (or call): each network id gets one of them. */
export type MessageEventName =
  | 'message.received'
  | 'message.sent'
  | 'message.reaction'
  | 'message.edited'
  | 'message.deleted'
  | 'call.received'
  | 'poll.vote'
  | 'channel.post'
  | 'status.received'
  | 'status.sent'

/** Where producers (instances, messages) hand events; the events part stores and delivers them. */
export interface EventSink {
  emit<E extends EventName>(instanceId: string, event: E, data: EventData<E>): LinkdeskEvent
  /**
   * Emits the event that announces a network message, unless one already did (the network delivers a
   * message again when its receipt was lost): each message id gets exactly one event id, across restarts.
   * Resolves once the event is durable (the network may then hear the message was received), to undefined
   * for a message already announced.
   */
  emitForMessage<E extends MessageEventName>(
    instanceId: string,
    messageId: string,
    event: E,
    data: EventData<E>,
  ): Promise<LinkdeskEvent | undefined>
  /** Resolves once every event emitted so far is durable (an answer that announces one waits for it). */
  durable(): Promise<void>
}
