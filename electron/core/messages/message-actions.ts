import type { Limits } from '../config'
import { AppError } from '../errors'
import type { EventSink } from '../contract/events'
import type { SentAnswer, WaMessageAction, WaOutgoingContent } from '../contract/network'
import { EDIT_WINDOW_SECONDS, REVOKE_WINDOW_SECONDS } from '@linkdesk/sandbox/protocol'
import { announceAction } from './message-intake'
import type { MessageSender } from './message-sender'
import { type MessageStore, networkKeyOf, type StoredMessage } from '../store/message-store'

export interface MessageActionsDeps {
  limits: Limits
  store: MessageStore
  sender: MessageSender
  events: EventSink
  now?: () => number
}

/** The network's poll limits: WhatsApp's apps allow 12 options. */
const POLL_OPTIONS = { min: 2, max: 12 }
const POLL_QUESTION_CHARS = 255
const POLL_OPTION_CHARS = 100

/** Longest reaction: an emoji is a few code units; anything longer is not what the apps send. */
const MAX_REACTION_CHARS = 32

/**
 * What a bot does to messages already sent or received: react, edit or delete its own text for everyone,
 * forward a stored message. Each goes through the instance's paced queue like a send, is checked against
 * the stored message first (nothing is sent on a refusal), and answers once the network acknowledged it.
 */
export class MessageActions {
  private readonly now: () => number

  constructor(private readonly deps: MessageActionsDeps) {
    this.now = deps.now ?? Date.now
  }

  /** Puts an emoji on a message; an empty emoji takes this account's reaction back. */
  async react(instanceId: string, messageId: string, emoji: string): Promise<SentAnswer> {
    if ([...emoji].length > MAX_REACTION_CHARS || /[\p{Cc}]/u.test(emoji)) {
      throw new AppError('invalid_parameter', 'emoji must be one emoji (empty to remove the reaction).', {
        details: { parameter: 'emoji' },
      })
    }
    const target = await this.stored(instanceId, messageId)
    return this.act(instanceId, target, { kind: 'reaction', target: networkKeyOf(target), emoji })
  }

  /** Replaces the text of a text this account sent, within the network's edit window. */
  async edit(instanceId: string, messageId: string, text: string): Promise<SentAnswer> {
    if (text.length === 0 || text.length > this.deps.limits.textChars) {
      throw new AppError(
        'invalid_parameter',
        `message must be 1 to ${this.deps.limits.textChars.toLocaleString('en-US')} characters.`,
        { details: { parameter: 'message' } },
      )
    }
    const target = await this.stored(instanceId, messageId)
    this.ownWithin(target, EDIT_WINDOW_SECONDS, 'edited', '15 minutes')
    if (target.message.type !== 'text') {
      throw new AppError(
        'action_not_allowed',
        `Only a text can be edited; ${messageId} is ${target.message.type}.`,
        {
          details: { parameter: 'message_id' },
        },
      )
    }
    return this.act(instanceId, target, { kind: 'edit', target: networkKeyOf(target), text })
  }

  /** Deletes a message this account sent, for everyone, within the network's window. */
  async revoke(instanceId: string, messageId: string): Promise<SentAnswer> {
    const target = await this.stored(instanceId, messageId)
    this.ownWithin(target, REVOKE_WINDOW_SECONDS, 'deleted for everyone', '60 hours')
    return this.act(instanceId, target, { kind: 'revoke', target: networkKeyOf(target) })
  }

  /** Sends a poll: its votes come back as poll.vote events with the running tally. */
  sendPoll(
    instanceId: string,
    number: string,
    poll: { question: string; options: readonly string[]; multiple: boolean },
  ): Promise<SentAnswer> {
    const question = poll.question.trim()
    const options = poll.options.map((option) => option.trim())
    if (!question || question.length > POLL_QUESTION_CHARS) {
      throw new AppError('invalid_parameter', `question must be 1 to ${POLL_QUESTION_CHARS} characters.`, {
        details: { parameter: 'question' },
      })
    }
    const problem =
      options.length < POLL_OPTIONS.min || options.length > POLL_OPTIONS.max
        ? `a poll has ${POLL_OPTIONS.min} to ${POLL_OPTIONS.max} options (got ${options.length})`
        : options.some((option) => !option || option.length > POLL_OPTION_CHARS)
          ? `each option is 1 to ${POLL_OPTION_CHARS} characters`
          : new Set(options).size !== options.length
            ? 'options must differ (votes name them)'
            : undefined
    if (problem) {
      throw new AppError('invalid_parameter', `options: ${problem}.`, { details: { parameter: 'options' } })
    }
    const content: WaOutgoingContent = { kind: 'poll', question, options, selectable: poll.multiple ? 0 : 1 }
    return this.deps.sender.sendTo(instanceId, number, async () => content)
  }

  /** Sends a stored message (sent or received) again to another chat, marked as forwarded. */
  async forward(instanceId: string, messageId: string, number: string): Promise<SentAnswer> {
    const target = await this.stored(instanceId, messageId)
    const { content } = target
    if (!content) {
      throw new AppError('action_not_allowed', `${messageId} has no stored content to forward.`, {
        details: { parameter: 'message_id' },
      })
    }
    const original = { key: networkKeyOf(target), content: Uint8Array.from(content) }
    return this.deps.sender.sendTo(instanceId, number, async () => ({ kind: 'forward', original }))
  }

  private async stored(instanceId: string, messageId: string): Promise<StoredMessage> {
    const stored = await this.deps.store.get(instanceId, messageId)
    if (!stored) {
      throw new AppError('message_not_found', `No stored message has the id ${messageId}.`, {
        details: { parameter: 'message_id' },
      })
    }
    return stored
  }

  /** Only the sender may change a message, and only for a while after sending it. */
  private ownWithin(target: StoredMessage, windowSeconds: number, done: string, window: string): void {
    const { message } = target
    if (!message.from_me) {
      throw new AppError(
        'action_not_allowed',
        `${message.id} was sent by someone else: only its sender can have it ${done}.`,
        {
          details: { parameter: 'message_id' },
        },
      )
    }
    const age = this.now() / 1000 - Number(message.timestamp)
    if (age > windowSeconds) {
      throw new AppError(
        'action_not_allowed',
        `${message.id} is too old to be ${done}: the network allows it for ${window} after sending.`,
        {
          details: { parameter: 'message_id', window_seconds: windowSeconds },
        },
      )
    }
  }

  /** Sends an action into the target's chat and announces it with its own event, not message.sent. */
  private act(instanceId: string, target: StoredMessage, content: WaOutgoingContent): Promise<SentAnswer> {
    const action = actionOf(content, target.message.id)
    return this.deps.sender.sendPrepared(instanceId, networkKeyOf(target).chat, async () => content, {
      announce: (message) => announceAction(this.deps.events, instanceId, message, action),
    })
  }
}

function actionOf(content: WaOutgoingContent, target: string): Exclude<WaMessageAction, { kind: 'vote' }> {
  switch (content.kind) {
    case 'reaction':
      return { kind: 'reaction', target, emoji: content.emoji }
    case 'edit':
      return { kind: 'edit', target, text: content.text }
    case 'revoke':
      return { kind: 'revoke', target }
    default:
      throw new Error(`${content.kind} is not an action on a message`)
  }
}
