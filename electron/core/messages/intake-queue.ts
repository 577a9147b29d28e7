import type { EventSink } from '../contract/events'
import type { InstanceBehaviours } from '../contract/instance'
import type { Logger } from '../logger'
import type { WaStatusUpdate } from '../contract/network'
import type { MessageStore } from '../store/message-store'
import type { StatusUpdate } from '../contract/message'
import { TurnsPerKey } from '../turns-per-key'

export interface IntakeQueueDeps {
  store: MessageStore
  events: EventSink
  logger: Logger
  /** What the instance does on its own: ignore groups. */
  behaviours(instanceId: string): InstanceBehaviours
}

/**
 * Per instance, what the adapter reports is applied in arrival order, one batch after the other: incoming
 * messages stored, and statuses moving only forward (the network's, and the "sent" a send marks once it has
 * stored its message). Built before the sender and the intake, which both feed it.
 */
export class IntakeQueue {
  private readonly turns = new TurnsPerKey()
  private readonly log: Logger

  constructor(private readonly deps: IntakeQueueDeps) {
    this.log = deps.logger.child({ module: 'messages' })
  }

  /** Runs `work` after everything reported earlier for the instance; a failure is logged. */
  enqueue(instanceId: string, work: () => Promise<void>): void {
    this.turns
      .run(instanceId, work)
      .catch((error: unknown) =>
        this.log.error({ err: error, instanceId }, 'applying message updates failed'),
      )
  }

  /** Applies the network's statuses, in turn. */
  statuses(instanceId: string, updates: WaStatusUpdate[]): void {
    this.enqueue(instanceId, () => this.applyStatuses(instanceId, updates))
  }

  /**
   * Marks a message sent once the send has stored it: the server's ack may have come while the store write
   * was in flight, when there was nothing yet to mark.
   */
  acknowledged(instanceId: string, id: string, chat: string): void {
    const update: WaStatusUpdate = {
      id,
      chat,
      status: 'sent',
      participant: null,
      timestamp: null,
      errorCode: null,
    }
    this.statuses(instanceId, [update])
  }

  /** Waits until everything reported so far is stored and announced (tests, shutdown). */
  async settled(): Promise<void> {
    await this.turns.settled()
  }

  private async applyStatuses(instanceId: string, updates: WaStatusUpdate[]): Promise<void> {
    for (const update of updates) {
      const { status } = update
      const stored = await this.deps.store.get(instanceId, update.id)
      if (!stored || (stored.message.is_group && this.deps.behaviours(instanceId).ignore_groups)) continue
      // Group receipts come per member: each is news. A 1:1 status is news only if it moves forward.
      const perMember = stored.message.is_group && update.participant !== null && status !== 'sent'
      const advanced =
        perMember || (await this.deps.store.advanceStatus(instanceId, update.id, status, stored))
      if (!advanced) continue
      const member = perMember ? memberIds(update) : { phone: null, lid: null }
      const data: StatusUpdate = {
        id: update.id,
        chat: stored.message.chat,
        status,
        recipient: perMember ? update.participant : null,
        recipient_phone: member.phone,
        recipient_lid: member.lid,
        error_code: update.errorCode,
      }
      this.deps.events.emit(instanceId, 'message.status', { ...data })
    }
  }
}

/** A group member's phone number (digits) and LID, from the ids a receipt names them by. */
function memberIds(update: WaStatusUpdate): { phone: string | null; lid: string | null } {
  const ids = [update.participant, update.participantAlt].map((jid) => jid?.replace(/:\d+@/, '@'))
  const phone = ids.find((jid) => jid?.endsWith('@s.whatsapp.net'))
  return {
    phone: phone ? phone.slice(0, phone.indexOf('@')) : null,
    lid: ids.find((jid) => jid?.endsWith('@lid')) ?? null,
  }
}
