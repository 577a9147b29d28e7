import type { ChannelManagement } from './channel-desk'
import { boundedCache, CACHE_LIMITS } from '../bounded-cache'
import type { EventSink } from '../contract/events'
import type { Logger } from '../logger'
import type { InstanceBehaviours } from '../contract/instance'
import type { CallHandling } from './call-desk'
import type { ChatSettings } from './chat-settings'
import type { SavedNames } from './saved-names'
import type { StarredMessages } from './starred-messages'
import type { ChatRemoval } from './chat-removal'
import type { LabelManagement } from './labels'
import type { PollVotes } from '../store/poll-votes'
import type { GroupManagement } from '../groups/group-desk'
import type {
  WaChannelPost,
  WaAppStateChange,
  WaChatSettingsChange,
  TallyVotes,
  WaAccount,
  WaCallOffer,
  WaGroupChange,
  WaHistory,
  WaInboundMessage,
  WaLidPair,
  WaMessageAction,
  NetworkTrafficHandlers,
  WaMessageKey,
  WaPresence,
  WaPresenceUpdate,
  WaStatusUpdate,
} from '../contract/network'
import { unhandledCase } from '../exhaustive'
import type { AckTracker } from './ack-tracker'
import type { IntakeQueue } from './intake-queue'
import type { UnacknowledgedSends } from './unacknowledged-sends'
import { STATUS_BROADCAST } from './status-updates'
import type { MessageStore } from '../store/message-store'
import type { LinkdeskMessage, Presence } from '../contract/message'

/** The network's presence names in Linkdesk's words. */
const PRESENCE_NAMES: Record<WaPresence, Presence> = {
  available: 'online',
  unavailable: 'offline',
  composing: 'typing',
  recording: 'recording',
  paused: 'paused',
}

export interface MessageIntakeDeps {
  chatSettings: ChatSettings
  stars: Pick<StarredMessages, 'apply'>
  chatRemoval: Pick<ChatRemoval, 'apply'>
  labels: Pick<LabelManagement, 'apply'>
  savedNames: SavedNames
  store: MessageStore
  events: EventSink
  acks: AckTracker
  /** Sends answered before their acknowledgement came, sent again until it does. */
  unacknowledged: UnacknowledgedSends
  /** Where messages are stored and statuses applied, per instance in arrival order. */
  queue: IntakeQueue
  logger: Logger
  /** Where incoming calls go. */
  calls: Pick<CallHandling, 'offered'>
  /** Where group changes go. */
  groups: Pick<GroupManagement, 'changed'>
  /** Where channel posts become events. */
  channels: Pick<ChannelManagement, 'onPost'>
  /** Each voter's latest vote on each poll. */
  polls: PollVotes
  /** Reads a poll's options and tallies its votes (the wa adapter's protocol reading). */
  tallyVotes: TallyVotes
  /** What the instance does on its own: ignore groups, mark incoming messages read. */
  behaviours(instanceId: string): InstanceBehaviours
  /** Marks a received message read (auto_read). */
  read(instanceId: string, key: WaMessageKey): Promise<void>
  /** The local URL where a message's media can be downloaded. */
  downloadUrl(instanceId: string, messageId: string): string
}

/**
 * What the adapter reports about messages, turned into Linkdesk events and stored messages: each message
 * announced once (live and offline copies, copies delivered again, and the echo of this app's own sends
 * share an id) and journaled before the network hears it was delivered, statuses moving only forward, and
 * the acks that sends wait for.
 */
export class MessageIntake implements NetworkTrafficHandlers {
  private readonly log: Logger

  /** LID ↔ phone pairs whose chats were joined while this process runs. */
  private readonly joined = boundedCache<string, true>(CACHE_LIMITS.lidPairsJoined)

  constructor(private readonly deps: MessageIntakeDeps) {
    this.log = deps.logger.child({ module: 'messages' })
  }

  getMessage(instanceId: string, messageId: string): Promise<Uint8Array | undefined> {
    return this.deps.store.content(instanceId, messageId)
  }

  /** Journals the message's event before resolving: the network's receipt goes out after this. */
  async onDecrypted(
    instanceId: string,
    inbound: WaInboundMessage,
    context: { live: boolean },
  ): Promise<void> {
    await this.take(instanceId, inbound, context.live)
  }

  onMessages(instanceId: string, messages: WaInboundMessage[], context: { live: boolean }): void {
    for (const inbound of messages) {
      this.take(instanceId, inbound, context.live).catch((error: unknown) => {
        this.log.error(
          { err: error, instanceId, messageId: inbound.message.id },
          'recording an incoming message failed',
        )
      })
    }
  }

  /**
   * Announces a message once per network id (a copy delivered again after a lost receipt, or the echo of
   * this app's own send, gets no second event): the message is stored and its event in the journal when this
   * returns (a vote is announced once its poll is read). Rejects if either cannot be written.
   */
  private async take(instanceId: string, inbound: WaInboundMessage, live: boolean): Promise<void> {
    const behaviours = this.deps.behaviours(instanceId)
    // Ignored groups surface nothing, and nothing of them is kept.
    if (inbound.message.is_group && behaviours.ignore_groups) return
    const { action } = inbound
    if (action?.kind === 'vote') return this.vote(instanceId, inbound.message, action)
    if (action) {
      await announceAction(this.deps.events, instanceId, inbound.message, action)
      return
    }
    const message = this.withDownloadUrl(instanceId, inbound.message)
    // Written with its event: the store joins the message to the event's commit where it can (PostgreSQL, one
    // transaction), so both are started before either is awaited. The intake waits for both, so a write that fails
    // (the disk full) fails it and the network's receipt does not go out: the network delivers the message again.
    // A copy delivered again stores what a kill may have lost; the store ignores one it has.
    const stored = this.deps.store
      .addIfNew(instanceId, {
        direction: message.from_me ? 'out' : 'in',
        message,
        content: inbound.content,
        networkKey: inbound.networkKey,
      })
      .catch((error: unknown) => {
        this.log.error(
          { err: error, instanceId, messageId: message.id },
          'storing an incoming message failed',
        )
        throw error
      })
    await Promise.all([stored, this.announce(instanceId, message, live)])
    this.deps.queue.enqueue(instanceId, async () => {
      // Read once kept: after the network has its delivery receipt, as a person reading it would be.
      if (behaviours.auto_read && !message.from_me) {
        await this.deps
          .read(instanceId, inbound.networkKey)
          .then(() => this.deps.store.markRead(instanceId, [message.id]))
          .catch((error: unknown) => {
            this.log.warn({ err: error, instanceId, messageId: message.id }, 'auto-read failed')
          })
      }
    })
  }

  /** A message's event: a status update is its own (status.received, status.sent), others message.* ones. */
  private announce(instanceId: string, message: LinkdeskMessage, live: boolean): Promise<unknown> {
    const { events } = this.deps
    if (message.chat === STATUS_BROADCAST) {
      return message.from_me
        ? events.emitForMessage(instanceId, message.id, 'status.sent', {
            ...message,
            source: 'phone',
            recipients: null,
          })
        : events.emitForMessage(instanceId, message.id, 'status.received', { ...message, live })
    }
    return message.from_me
      ? events.emitForMessage(instanceId, message.id, 'message.sent', { ...message, source: 'phone' })
      : events.emitForMessage(instanceId, message.id, 'message.received', { ...message, live })
  }

  onStatuses(instanceId: string, updates: WaStatusUpdate[]): void {
    for (const update of updates) {
      const outcome =
        update.status === 'failed'
          ? { ok: false as const, errorCode: update.errorCode, chat: update.chat }
          : { ok: true as const }
      // Only the server's ack (or its refusal) may come before the send waits; receipts just wake a waiter.
      this.deps.acks.settle(
        instanceId,
        update.id,
        outcome,
        update.status === 'sent' || update.status === 'failed',
      )
      this.deps.unacknowledged.settled(instanceId, update.id, outcome.ok)
    }
    this.deps.queue.statuses(instanceId, updates)
  }

  pollContent(instanceId: string, pollId: string): Promise<Uint8Array | undefined> {
    return this.deps.store.content(instanceId, pollId)
  }

  /**
   * One person's LID and phone number: a chat kept under the LID (a contact whose number was hidden) becomes
   * the phone number's chat, after the messages reported before the pair are stored. Once per pair while
   * the process runs (joining again finds nothing to move).
   */
  onLidPairs(instanceId: string, pairs: WaLidPair[]): void {
    for (const { lid, phone } of pairs) {
      const key = `${instanceId}\u0000${lid}\u0000${phone}`
      if (this.joined.has(key)) continue
      this.joined.set(key, true)
      this.deps.queue.enqueue(instanceId, async () => {
        const moved = await this.deps.store.joinChat(instanceId, lid, phone)
        if (moved > 0) this.log.info({ instanceId, messages: moved }, 'a LID chat joined its phone number')
      })
    }
  }

  /**
   * A vote: kept as the voter's latest, then announced with the poll's running tally. A vote on a poll that is
   * not stored here cannot be read: it is announced with its options and tally unknown (null), and logged.
   */
  private async vote(
    instanceId: string,
    message: LinkdeskMessage,
    vote: Extract<WaMessageAction, { kind: 'vote' }>,
  ): Promise<void> {
    const { id, chat, is_group, from_me, sender, sender_phone, sender_lid, push_name, timestamp } = message
    const act = { id, chat, is_group, from_me, sender, sender_phone, sender_lid, push_name, timestamp }
    // The poll as the mapping read it to decrypt the vote: not read from the store a second time.
    const content = vote.hashes && vote.poll
    if (!vote.hashes || !content) {
      this.log.warn(
        { instanceId, messageId: id, pollId: vote.target, voter: vote.voter },
        'a vote on a poll that is not stored: announced with its options unknown',
      )
      await this.deps.events.emitForMessage(instanceId, id, 'poll.vote', {
        ...act,
        target_id: vote.target,
        voter: vote.voter,
        options: null,
        tally: null,
      })
      return
    }
    const votes = await this.deps.polls.record(instanceId, vote.target, vote.voter, vote.hashes)
    await this.deps.events.emitForMessage(instanceId, id, 'poll.vote', {
      ...act,
      target_id: vote.target,
      voter: vote.voter,
      options: vote.options,
      tally: this.deps.tallyVotes(content, votes).map(({ option, voters }) => ({
        option,
        votes: voters.length,
        voters,
      })),
    })
  }

  onCall(instanceId: string, call: WaCallOffer): void {
    if (call.group && this.deps.behaviours(instanceId).ignore_groups) return
    this.deps.calls.offered(instanceId, call)
  }

  /**
   * Keeps what the phone's history sync carries, without events (it happened before the link): messages
   * already stored stay as they are, and only each chat's `unread` newest received messages count unread.
   */
  onHistory(instanceId: string, history: WaHistory): void {
    const ignoreGroups = this.deps.behaviours(instanceId).ignore_groups
    const unread = new Map(history.unread.map(({ chat, count }) => [chat, count]))
    const received = history.messages
      .filter(({ action, message }) => !action && !message.from_me)
      .sort((a, b) => Number(b.message.timestamp) - Number(a.message.timestamp))
    const unreadIds = new Set<string>()
    for (const { message } of received) {
      const left = unread.get(message.chat) ?? 0
      if (left > 0) unreadIds.add(message.id)
      unread.set(message.chat, left - 1)
    }
    // The phone lists each chat newest first: stored oldest first, so listing keeps the order within a second.
    const kept = history.messages
      .filter(({ action, message }) => !action && !(ignoreGroups && message.is_group))
      .reverse()
      .sort((a, b) => Number(a.message.timestamp) - Number(b.message.timestamp))
    this.deps.queue.enqueue(instanceId, async () => {
      for (const inbound of kept) {
        const message = this.withDownloadUrl(instanceId, inbound.message)
        await this.deps.store
          .addIfNew(instanceId, {
            direction: message.from_me ? 'out' : 'in',
            message,
            content: inbound.content,
            networkKey: inbound.networkKey,
            read: message.from_me ? undefined : !unreadIds.has(message.id),
          })
          .catch((error: unknown) =>
            this.log.error(
              { err: error, instanceId, messageId: message.id },
              'storing a history message failed',
            ),
          )
      }
      this.log.info({ instanceId, messages: kept.length }, 'history sync kept')
    })
  }

  /** Journals the post's event before resolving: the network hears the post was taken after this. */
  onChannelPost(instanceId: string, post: WaChannelPost): Promise<void> {
    return this.deps.channels.onPost(instanceId, post)
  }

  onSavedNames(instanceId: string, names: Array<{ chat: string; name: string }>): void {
    void this.deps.savedNames.keep(instanceId, names)
  }

  onChatSettings(instanceId: string, changes: WaChatSettingsChange[]): void {
    // The label or chat-settings part logs a failure; the app state keeps the setting, so the next change or link shows it again.
    this.deps.chatSettings.apply(instanceId, changes).catch(() => undefined)
  }

  onAppState(instanceId: string, changes: WaAppStateChange[]): void {
    // Each part logs a failure; the app state keeps the change, so a new link shows it again.
    const stars = changes.filter((change) => change.kind === 'star')
    if (stars.length > 0) this.deps.stars.apply(instanceId, stars).catch(() => undefined)
    const removals = changes.filter((change) => change.kind === 'clear' || change.kind === 'delete')
    if (removals.length > 0) this.deps.chatRemoval.apply(instanceId, removals).catch(() => undefined)
    const labels = changes.filter(
      (change) =>
        change.kind === 'label_edit' || change.kind === 'label_chat' || change.kind === 'label_message',
    )
    if (labels.length > 0) this.deps.labels.apply(instanceId, labels).catch(() => undefined)
  }

  onGroupChange(instanceId: string, change: WaGroupChange, account: WaAccount): void {
    this.deps.groups.changed(instanceId, change, account)
  }

  onPresence(instanceId: string, updates: WaPresenceUpdate[]): void {
    const ignoreGroups = this.deps.behaviours(instanceId).ignore_groups
    for (const update of updates) {
      if (ignoreGroups && update.chat.endsWith('@g.us')) continue
      const addresses = [update.participant, update.participantAlt ?? '']
      const phone = addresses.find((jid) => jid.endsWith('@s.whatsapp.net'))?.split('@')[0] ?? null
      this.deps.events.emit(instanceId, 'presence.update', {
        chat: update.chat,
        participant: update.participant,
        participant_phone: phone,
        participant_lid: addresses.find((jid) => jid.endsWith('@lid')) ?? null,
        presence: PRESENCE_NAMES[update.presence],
        last_seen: update.lastSeen,
      })
    }
  }

  /** The message with the local address where its media can be downloaded. */
  private withDownloadUrl(instanceId: string, message: LinkdeskMessage): LinkdeskMessage {
    if (!message.media) return message
    return {
      ...message,
      media: { ...message.media, download_url: this.deps.downloadUrl(instanceId, message.id) },
    }
  }
}

/**
 * The event of a message that acts on an earlier one (message.reaction, message.edited, message.deleted),
 * once per network id like any message: who acted, where and when, and on which message.
 */
export function announceAction(
  events: EventSink,
  instanceId: string,
  message: LinkdeskMessage,
  action: Exclude<WaMessageAction, { kind: 'vote' }>,
): Promise<unknown> {
  const { id, chat, is_group, from_me, sender, sender_phone, sender_lid, push_name, timestamp } = message
  const act = { id, chat, is_group, from_me, sender, sender_phone, sender_lid, push_name, timestamp }
  const target_id = action.target
  switch (action.kind) {
    case 'reaction':
      return events.emitForMessage(instanceId, id, 'message.reaction', {
        ...act,
        target_id,
        emoji: action.emoji,
        removed: action.emoji === '',
      })
    case 'edit':
      return events.emitForMessage(instanceId, id, 'message.edited', { ...act, target_id, text: action.text })
    case 'revoke':
      return events.emitForMessage(instanceId, id, 'message.deleted', { ...act, target_id })
    default:
      unhandledCase(action, 'message action')
  }
}
