import { storedChat } from './stored-chat'
import type { EventSink } from '../contract/events'
import type { WaAppStateChange, WaConnection } from '../contract/network'
import type { Logger } from '../logger'
import { type MessageStore, networkKeyOf } from '../store/message-store'
import { TurnsPerKey } from '../turns-per-key'
import type { ChatSettings } from './chat-settings'

export interface ChatRemovalDeps {
  store: MessageStore
  events: EventSink
  logger: Logger
  connection(instanceId: string): Promise<WaConnection>
  settings: Pick<ChatSettings, 'forget'>
}

type RemovalChange = Extract<WaAppStateChange, { kind: 'clear' | 'delete' }>

/** What a clear or a delete did here. */
export interface ChatRemoved {
  chat: string
  messages_removed: number
}

const EVENT = { clear: 'chat.cleared', delete: 'chat.deleted' } as const

/**
 * How long the network's report of a clear or delete this app made counts as that one. The report can come after
 * newer messages (a delete's report names no range: it stands for everything up to its arrival), so applying it
 * would remove them; within this window a report of the same kind for the same chat is taken as the echo.
 */
const OWN_ECHO_MS = 60_000

/**
 * Clearing and deleting chats for this account, as the account's app state carries them: through the API (sent
 * to the network, which syncs the phone and the other devices) or elsewhere (reported by the adapter). Either
 * removes the chat's stored messages up to the clear; a delete also forgets the chat's flags. Each that changed
 * something here is one chat.cleared or chat.deleted, with its source.
 */
export class ChatRemoval {
  /** Per instance, one removal at a time. */
  private readonly turns = new TurnsPerKey()
  private readonly log: Logger
  /** This app's own removals, by instance, kind and chat, with when they were made (pruned past OWN_ECHO_MS). */
  private readonly own = new Map<string, number>()

  constructor(private readonly deps: ChatRemovalDeps) {
    this.log = deps.logger.child({ module: 'chat-removal' })
  }

  /**
   * Clears or deletes a chat on the network, then here: the chat must have a stored message (chat_not_found,
   * and nothing is sent). Its messages up to its newest go.
   */
  remove(instanceId: string, chat: string, kind: 'clear' | 'delete'): Promise<ChatRemoved> {
    return this.turns.run(instanceId, async () => {
      const stored = await storedChat(this.deps.store, instanceId, chat)
      const id = stored.chat
      const timestamp = Number(stored.last.message.timestamp) || 0
      const connection = await this.deps.connection(instanceId)
      await connection.modifyChat(id, { kind, last: { key: networkKeyOf(stored.last), timestamp } })
      this.madeHere(instanceId, kind, [chat, id])
      const removed = await this.deps.store.removeChat(instanceId, id, timestamp)
      if (kind === 'delete') await this.deps.settings.forget(instanceId, [id])
      this.deps.events.emit(instanceId, EVENT[kind], { chat: id, source: 'api', messages_removed: removed })
      return { chat: id, messages_removed: removed }
    })
  }

  /** Clears and deletes made on the phone or another linked device: applied, and announced when they changed something. */
  apply(instanceId: string, changes: readonly RemovalChange[]): Promise<void> {
    return this.turns.run(instanceId, async () => {
      for (const change of changes) {
        await this.applyOne(instanceId, change).catch((error: unknown) => {
          this.log.error({ err: error, instanceId, kind: change.kind }, 'removing a chat’s messages failed')
        })
      }
    })
  }

  private async applyOne(instanceId: string, { kind, chat, upTo }: RemovalChange): Promise<void> {
    // The chat as Linkdesk names it (its stored messages'), else as the app state did.
    const [newest] = await this.deps.store.chatPage(instanceId, chat, 1)
    const shown = newest?.message.chat ?? chat
    if (this.isEcho(instanceId, kind, [chat, shown])) {
      this.log.debug(
        { instanceId, kind },
        'the network’s report of this app’s own chat removal: not applied again',
      )
      return
    }
    const removed = await this.deps.store.removeChat(instanceId, chat, upTo)
    const forgot =
      kind === 'delete' && (await this.deps.settings.forget(instanceId, [...new Set([shown, chat])]))
    if (removed === 0 && !forgot) return
    this.deps.events.emit(instanceId, EVENT[kind], {
      chat: shown,
      source: 'phone',
      messages_removed: removed,
    })
  }

  private madeHere(instanceId: string, kind: RemovalChange['kind'], chats: readonly string[]): void {
    const now = Date.now()
    for (const [key, at] of this.own) if (now - at > OWN_ECHO_MS) this.own.delete(key)
    for (const chat of chats) this.own.set(ownKey(instanceId, kind, chat), now)
  }

  private isEcho(instanceId: string, kind: RemovalChange['kind'], chats: readonly string[]): boolean {
    const now = Date.now()
    return chats.some(
      (chat) => now - (this.own.get(ownKey(instanceId, kind, chat)) ?? -Infinity) <= OWN_ECHO_MS,
    )
  }
}

function ownKey(instanceId: string, kind: string, chat: string): string {
  return `${instanceId}\u0000${kind}\u0000${chat}`
}
