import { AppError } from '../errors'
import { storedChat } from './stored-chat'
import type { EventSink } from '../contract/events'
import type {
  WaChatModification,
  WaChatSettingsChange,
  WaConnection,
  WaLastMessage,
} from '../contract/network'
import type { Logger } from '../logger'
import type { ChatFlagName, ChatFlags } from '../contract/chat-flags'
import type { InstanceAuthStore } from '../store/auth-store'
import type { MessageStore, StoredMessage } from '../store/message-store'
import { TurnsPerKey } from '../turns-per-key'

/** How many chats the network lets an account pin. */
export const PIN_LIMIT = 3

/** What is kept of a chat's settings: as the app state carries them. */
interface StoredSettings {
  archived?: boolean
  pinned?: boolean
  /** Unix milliseconds (-1: always); null or absent: not muted. */
  mutedUntil?: number | null
  unread?: boolean
  /** The disappearing-messages timer, seconds (0 or absent: off). */
  disappearing?: number
}

/**
 * Where the settings are kept: beside the app-state versions they were read from, in the instance's key store
 * (Baileys' auth state), so both survive a restart together and both go when the link is wiped (a new link
 * syncs the app state again).
 */
const KEY_TYPE = 'linkdesk-chat-settings'
const KEY_ID = 'chats'

export interface ChatSettingsDeps {
  store: MessageStore
  auth(instanceId: string): InstanceAuthStore
  events: EventSink
  logger: Logger
  connection(instanceId: string): Promise<WaConnection>
  now?: () => number
}

/** A change asked through the API, in Linkdesk's words. */
export type ChatSettingsRequest =
  | { archived: boolean }
  | { pinned: boolean }
  /** Unix milliseconds (-1: always); null unmutes. */
  | { mutedUntil: number | null }
  | { unread: boolean }
  /** Seconds (0: off). */
  | { disappearing: number }

/** A chat's flags when its settings were never changed. */
export const UNSET_FLAGS: ChatFlags = {
  archived: false,
  pinned: false,
  muted: false,
  muted_until: null,
  marked_unread: false,
  disappearing_timer: 0,
}

function flagsOf(settings: StoredSettings | undefined, now: number): ChatFlags {
  const until = settings?.mutedUntil ?? null
  const muted = until !== null && (until === -1 || until > now)
  return {
    archived: settings?.archived ?? false,
    pinned: settings?.pinned ?? false,
    muted,
    muted_until: muted && until !== -1 ? Math.floor(until / 1000) : null,
    marked_unread: settings?.unread ?? false,
    disappearing_timer: settings?.disappearing ?? 0,
  }
}

function changedFlags(before: ChatFlags, after: ChatFlags): ChatFlagName[] {
  const names: ChatFlagName[] = []
  if (before.archived !== after.archived) names.push('archived')
  if (before.pinned !== after.pinned) names.push('pinned')
  if (before.muted !== after.muted || before.muted_until !== after.muted_until) names.push('muted')
  if (before.marked_unread !== after.marked_unread) names.push('marked_unread')
  if (before.disappearing_timer !== after.disappearing_timer) names.push('disappearing_timer')
  return names
}

/** The network key of a stored message, or one made from its fields (a message sent from here). */
function lastMessageOf(stored: StoredMessage): WaLastMessage {
  const { message } = stored
  const key = stored.networkKey ?? {
    id: message.id,
    chat: message.chat,
    chatAlt: null,
    fromMe: message.from_me,
    participant: message.is_group && !message.from_me ? message.sender : null,
    participantAlt: null,
  }
  return { key, timestamp: Number(message.timestamp) }
}

/**
 * The chats' settings the account's app state carries (archive, pin, mute, marked unread), and each chat's
 * disappearing-messages timer (a protocol message in the chat, not app state, kept here beside them): changed through
 * the API (sent to the network, which syncs them to the phone and the other devices) or by the phone and
 * other devices (reported by the adapter); each change that alters a chat's flags is one chat.updated.
 */
export class ChatSettings {
  /** Per instance, the read-change-write in progress: changes apply one at a time. */
  private readonly turns = new TurnsPerKey()
  private readonly now: () => number
  private readonly log: Logger

  constructor(private readonly deps: ChatSettingsDeps) {
    this.now = deps.now ?? Date.now
    this.log = deps.logger.child({ module: 'chat-settings' })
  }

  /** The flags of these chats. */
  async flags(instanceId: string, chats: readonly string[]): Promise<Map<string, ChatFlags>> {
    const kept = await this.read(instanceId)
    const now = this.now()
    return new Map(chats.map((chat) => [chat, flagsOf(kept[chat], now)]))
  }

  /**
   * Changes a chat's setting on the network, then here: the chat must have a stored message (chat_not_found),
   * and a fourth pinned chat is refused (pin_limit_reached) before anything is sent. Answers the chat's flags.
   */
  async change(
    instanceId: string,
    chat: string,
    request: ChatSettingsRequest,
  ): Promise<{ chat: string } & ChatFlags> {
    const stored = await storedChat(this.deps.store, instanceId, chat)
    const id = stored.chat
    if ('pinned' in request && request.pinned) {
      const kept = await this.read(instanceId)
      const pinned = Object.keys(kept).filter((other) => kept[other]?.pinned && other !== id)
      if (pinned.length >= PIN_LIMIT) {
        throw new AppError(
          'pin_limit_reached',
          `${PIN_LIMIT} chats are pinned already, the network's limit: unpin one first.`,
          { details: { pinned } },
        )
      }
    }
    const connection = await this.deps.connection(instanceId)
    if ('disappearing' in request) await connection.setDisappearing(id, request.disappearing)
    else await connection.modifyChat(id, this.modification(request, lastMessageOf(stored.last)))
    await this.apply(instanceId, [{ chat: id, ...request }])
    return { chat: id, ...(await this.flags(instanceId, [id])).get(id)! }
  }

  /** Settings the app state changed (by anyone): kept, and chat.updated for each chat whose flags changed. */
  apply(instanceId: string, changes: readonly WaChatSettingsChange[]): Promise<void> {
    return this.turns.run(instanceId, () =>
      this.applyNow(instanceId, changes).catch((error: unknown) => {
        this.log.error({ err: error, instanceId }, 'keeping chat settings failed')
        throw error
      }),
    )
  }

  private async applyNow(instanceId: string, changes: readonly WaChatSettingsChange[]): Promise<void> {
    const kept = await this.read(instanceId)
    const now = this.now()
    const updated: Array<{ chat: string; flags: ChatFlags; changed: ChatFlagName[] }> = []
    for (const { chat, ...change } of changes) {
      const before = flagsOf(kept[chat], now)
      const next = { ...kept[chat], ...change }
      const after = flagsOf(next, now)
      const changed = changedFlags(before, after)
      if (changed.length === 0) continue
      kept[chat] = next
      updated.push({ chat, flags: after, changed })
    }
    if (updated.length === 0) return
    await this.deps.auth(instanceId).setKeys({ [KEY_TYPE]: { [KEY_ID]: kept } })
    for (const { chat, flags, changed } of updated) {
      this.deps.events.emit(instanceId, 'chat.updated', { chat, ...flags, changed })
    }
  }

  /**
   * Forgets the archive, pin, mute and unread settings of deleted chats (their disappearing timer, the chat's
   * own setting shared with its other side, stays); resolves to whether any was set. Announces nothing: the
   * deletion's event says it.
   */
  forget(instanceId: string, chats: readonly string[]): Promise<boolean> {
    return this.turns.run(instanceId, async () => {
      const kept = await this.read(instanceId)
      let forgot = false
      for (const chat of chats) {
        const settings = kept[chat]
        if (!settings) continue
        const { disappearing, ...rest } = settings
        if (!Object.values(rest).some((value) => value !== undefined && value !== null && value !== false))
          continue
        forgot = true
        if (disappearing) kept[chat] = { disappearing }
        else delete kept[chat]
      }
      if (forgot) await this.deps.auth(instanceId).setKeys({ [KEY_TYPE]: { [KEY_ID]: kept } })
      return forgot
    })
  }

  private async read(instanceId: string): Promise<Record<string, StoredSettings>> {
    const found = await this.deps.auth(instanceId).getKeys(KEY_TYPE, [KEY_ID])
    return { ...(found[KEY_ID] as Record<string, StoredSettings> | undefined) }
  }

  /** The chat's disappearing-messages timer in seconds (0: off), which the messages sent to it carry. */
  async disappearing(instanceId: string, chat: string): Promise<number> {
    return (await this.read(instanceId))[chat]?.disappearing ?? 0
  }

  private modification(
    request: Exclude<ChatSettingsRequest, { disappearing: number }>,
    last: WaLastMessage,
  ): WaChatModification {
    if ('archived' in request) return { kind: 'archive', archived: request.archived, last }
    if ('pinned' in request) return { kind: 'pin', pinned: request.pinned }
    if ('mutedUntil' in request) return { kind: 'mute', until: request.mutedUntil }
    return { kind: 'unread', unread: request.unread, last }
  }
}
