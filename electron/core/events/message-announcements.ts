import { boundedCache, CACHE_LIMITS } from '../bounded-cache'
import { type Coordinator, leaseLost } from '../contract/coordination'
import type { EventName } from '../contract/event-catalogue'
import type { LinkdeskEvent } from '../contract/events'
import { type EventStore, MessageAlreadyAnnounced } from '../store/event-store'
import { TurnsPerKey } from '../turns-per-key'
import type { EventLog, Recorded } from './event-log'

/** What announcing a network message came to: its event, or a copy of one being written. */
type Announcement = { emitted: Recorded } | { copyOf: { eventId: string; durable: Promise<void> } }

/**
 * Network messages announced once: each message id gets one event, whatever copies the network delivers (the
 * echo of a send, a message delivered again, a peer's), and a copy's answer waits for the first one's event to
 * be durable.
 */
export class MessageAnnouncements {
  /**
   * Network messages announced but not committed yet (`instanceId\0messageId`): their event id, and when the
   * event is durable. A copy of such a message waits for that before it counts as announced.
   */
  private readonly claimed = new Map<string, { eventId: string; durable: Promise<void> }>()
  /**
   * On a store that claims message ids in the commit: ids whose claim this process saw committed (or refused
   * as taken), so a copy (the echo of a send, a message delivered again) is known without a round trip.
   */
  private readonly announced = boundedCache<string, true>(CACHE_LIMITS.messageIdsInFlight)
  /** Per instance, message announcements look up and record one after the other, in call order. */
  private readonly announcing = new TurnsPerKey()

  constructor(
    private readonly deps: {
      store: Pick<EventStore, 'claimsInCommit' | 'eventOfMessage'>
      log: Pick<EventLog, 'record'>
      /** Whether the events are journaled (a failed commit is then written at the next start). */
      journaled: boolean
      coordinator: Pick<Coordinator, 'mayAct'>
    },
  ) {}

  /**
   * Records the network message's event unless it was announced already (then resolves to undefined), and
   * resolves once that event is durable (see EventService.emitForMessage).
   */
  announce(
    instanceId: string,
    messageId: string,
    event: EventName,
    data: Record<string, unknown>,
  ): Promise<LinkdeskEvent | undefined> {
    const { store, log } = this.deps
    const key = `${instanceId}\u0000${messageId}`
    const recorded = this.announcing.run(instanceId, async (): Promise<Announcement | undefined> => {
      const earlier = this.claimed.get(key)
      if (earlier) return { copyOf: earlier }
      if (this.announced.has(key)) return undefined
      // A store that claims the id in the event's own commit needs no lookup first (one round trip, not two).
      if (!store.claimsInCommit) {
        if ((await store.eventOfMessage(instanceId, messageId)) !== undefined) return undefined
        const meanwhile = this.claimed.get(key)
        if (meanwhile) return { copyOf: meanwhile }
      }
      const emitted = log.record(instanceId, event, data, messageId)
      const claim = { eventId: emitted.envelope.event_id, durable: emitted.durable }
      this.claimed.set(key, claim)
      const release = () => this.claimed.get(key) === claim && this.claimed.delete(key)
      // A failed commit keeps the claim with a journal (the next start writes the event from it); without
      // one the event is lost, so a later copy of the message is announced afresh, unless the commit failed
      // because the id was claimed already.
      emitted.written.then(
        () => {
          if (store.claimsInCommit) this.announced.set(key, true)
          release()
        },
        (error: unknown) => {
          if (error instanceof MessageAlreadyAnnounced) this.announced.set(key, true)
          if (!this.deps.journaled) release()
        },
      )
      return { emitted }
    })
    return recorded.then(async (result) => {
      if (!result) return undefined
      try {
        await ('copyOf' in result ? result.copyOf.durable : result.emitted.durable)
      } catch (error) {
        // Its commit found the id claimed (by an earlier run, or a peer): announced already, and durable.
        if (error instanceof MessageAlreadyAnnounced) return undefined
        throw error
      }
      if ('copyOf' in result) return undefined
      // A node that lost the instance meanwhile must not let the network think it kept the message.
      if (!this.deps.coordinator.mayAct(instanceId)) throw leaseLost(instanceId)
      return result.emitted.envelope
    })
  }
}
