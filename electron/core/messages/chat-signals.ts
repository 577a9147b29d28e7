import { AppError } from '../errors'
import type { WaConnection, WaPresence } from '../contract/network'
import type { MessageSender } from './message-sender'
import { type MessageStore, networkKeyOf, type StoredMessage } from '../store/message-store'

export interface ChatSignalsDeps {
  store: MessageStore
  sender: MessageSender
  /** The instance's messaging operations, once connected. */
  connection(instanceId: string): Promise<WaConnection>
}

/** What marking a whole chat read covers: its newest received messages, at most this many. */
export const READ_CHAT_LIMIT = 1000

/** Presence states a script may show, in the API's words. */
export const CHAT_STATES = ['typing', 'recording', 'paused'] as const
export const AVAILABILITIES = ['online', 'offline'] as const
export type ShownPresence = (typeof CHAT_STATES)[number] | (typeof AVAILABILITIES)[number]

const NETWORK_PRESENCE: Record<ShownPresence, WaPresence> = {
  typing: 'composing',
  recording: 'recording',
  paused: 'paused',
  online: 'available',
  offline: 'unavailable',
}

/**
 * The signals around messages that are not messages: read receipts (blue ticks), "typing…" in a chat, the
 * account's availability, and subscriptions to contacts' presence.
 */
export class ChatSignals {
  constructor(private readonly deps: ChatSignalsDeps) {}

  /**
   * Marks received messages read: the ones named, or a whole chat's (its newest stored ones); answers how
   * many receipts went out.
   */
  async markRead(instanceId: string, target: { messageIds?: string[]; number?: string }): Promise<number> {
    if ((target.messageIds === undefined) === (target.number === undefined)) {
      throw new AppError('invalid_parameter', 'Give message_ids or number (a whole chat), one of them.', {
        details: { parameter: 'message_ids' },
      })
    }
    const messages = target.messageIds
      ? await Promise.all(target.messageIds.map((id) => this.received(instanceId, id)))
      : await this.deps.store.receivedIn(
          instanceId,
          await this.deps.sender.chatOf(instanceId, target.number ?? ''),
          READ_CHAT_LIMIT,
        )
    if (messages.length === 0) return 0
    const connection = await this.deps.connection(instanceId)
    await connection.read(messages.map(networkKeyOf))
    await this.deps.store.markRead(
      instanceId,
      messages.map((stored) => stored.message.id),
    )
    return messages.length
  }

  /** Shows typing, recording or paused in a chat, or the account online or offline (no number). */
  async showPresence(instanceId: string, presence: ShownPresence, number: string | undefined): Promise<void> {
    const inChat = (CHAT_STATES as readonly string[]).includes(presence)
    if (inChat && number === undefined) {
      throw new AppError(
        'missing_parameter',
        `Missing required parameter: number (the chat to show ${presence} in).`,
        {
          details: { parameters: ['number'] },
        },
      )
    }
    if (!inChat && number !== undefined) {
      throw new AppError(
        'invalid_parameter',
        `number is not used with ${presence}: availability is the account's, not a chat's.`,
        {
          details: { parameter: 'number' },
        },
      )
    }
    const chat = number === undefined ? undefined : await this.deps.sender.chatOf(instanceId, number)
    const connection = await this.deps.connection(instanceId)
    await connection.presence(NETWORK_PRESENCE[presence], chat)
  }

  /** Subscribes to a contact's presence; its changes arrive as presence.update events. */
  async subscribe(instanceId: string, number: string): Promise<string> {
    const chat = await this.deps.sender.chatOf(instanceId, number)
    const connection = await this.deps.connection(instanceId)
    await connection.subscribePresence(chat)
    return chat
  }

  private async received(instanceId: string, id: string): Promise<StoredMessage> {
    const stored = await this.deps.store.get(instanceId, id)
    if (!stored) {
      throw new AppError('message_not_found', `No stored message has the id ${id}.`, {
        details: { parameter: 'message_ids' },
      })
    }
    if (stored.direction !== 'in') {
      throw new AppError(
        'action_not_allowed',
        `${id} was sent by this account: only received messages are read.`,
        {
          details: { parameter: 'message_ids' },
        },
      )
    }
    return stored
  }
}
