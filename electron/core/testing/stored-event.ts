import type { StoredEvent } from '../store/event-store'

/** A stored `message.received` event of an instance, not to be delivered: the smallest record a store takes. */
export function storedEvent(id: string, instanceId = 'A', data: Record<string, unknown> = {}): StoredEvent {
  return {
    envelope: { event: 'message.received', event_id: id, instance_id: instanceId, timestamp: '1', data },
    owner: null,
    delivery: {
      status: 'skipped',
      attempts: 0,
      last_attempt_at: null,
      last_status_code: null,
      last_error: null,
    },
  } as StoredEvent
}
