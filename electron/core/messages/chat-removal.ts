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
 * Clearing and deleting chats for this account, as the account's app state carries them: through the API (sent
 * to the network, which syncs the phone and the other devices) or elsewhere (reported by the adapter). Either
 * removes the chat's stored messages up to the clear; a delete also forgets the chat's flags. Each that changed
 * something here is one chat.cleared or chat.deleted, with its source.
 */
export class ChatRemoval {
  /** Per instance, one removal at a time: the adapter's report of this app's own change finds nothing left. */
  private readonly turns = new TurnsPerKey()
  private readonly log: Logger

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
}
