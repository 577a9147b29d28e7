import { AppError } from '../errors'
import type { EventSink } from '../contract/events'
import type { WaAppStateChange, WaConnection } from '../contract/network'
import type { Logger } from '../logger'
import type { InstanceAuthStore } from '../store/auth-store'
import { type MessageStore, networkKeyOf } from '../store/message-store'
import { TurnsPerKey } from '../turns-per-key'

/**
 * Kept beside the app-state versions they come from, as the chats' settings are (chat-settings.ts): by message
 * id, the chat it is starred in.
 */
const KEY_TYPE = 'linkdesk-starred'
const KEY_ID = 'messages'

export interface StarredMessagesDeps {
  store: MessageStore
  auth(instanceId: string): InstanceAuthStore
  events: EventSink
  logger: Logger
  connection(instanceId: string): Promise<WaConnection>
}

type StarChange = Extract<WaAppStateChange, { kind: 'star' }>

/**
 * Starred messages, as the account's app state carries them: starred or unstarred through the API (sent to the
 * network, which syncs the phone and the other devices) or elsewhere (reported by the adapter); each change is
 * one message.starred.
 */
export class StarredMessages {
  private readonly turns = new TurnsPerKey()
  private readonly log: Logger

  constructor(private readonly deps: StarredMessagesDeps) {
    this.log = deps.logger.child({ module: 'starred-messages' })
  }

  /** Stars (or unstars) a stored message on the network, then here; an unknown one is message_not_found. */
  async star(
    instanceId: string,
    messageId: string,
    starred: boolean,
  ): Promise<{ id: string; chat: string; starred: boolean }> {
    const stored = await this.deps.store.get(instanceId, messageId)
    if (!stored) {
      throw new AppError('message_not_found', `No stored message has the id ${messageId}.`, {
        details: { parameter: 'message_id' },
      })
    }
    const key = networkKeyOf(stored)
    const connection = await this.deps.connection(instanceId)
    await connection.modifyChat(key.chat, { kind: 'star', message: key, starred })
    await this.apply(instanceId, [{ kind: 'star', chat: key.chat, messageId, fromMe: key.fromMe, starred }])
    return { id: messageId, chat: stored.message.chat, starred }
  }

  /** Which of these message ids are starred. */
  async starred(instanceId: string, ids: readonly string[]): Promise<Set<string>> {
    const kept = await this.read(instanceId)
    return new Set(ids.filter((id) => kept[id] !== undefined))
  }

  /** Stars the app state changed (by anyone): kept, and message.starred for each that changed. */
  apply(instanceId: string, changes: readonly StarChange[]): Promise<void> {
    return this.turns.run(instanceId, () =>
      this.applyNow(instanceId, changes).catch((error: unknown) => {
        this.log.error({ err: error, instanceId }, 'keeping stars failed')
        throw error
      }),
    )
  }

  private async applyNow(instanceId: string, changes: readonly StarChange[]): Promise<void> {
    const kept = await this.read(instanceId)
    const announced: Array<{ id: string; chat: string; starred: boolean }> = []
    for (const { messageId, chat, starred } of changes) {
      if ((kept[messageId] !== undefined) === starred) continue
      // The chat as Linkdesk names it (the stored message's), else as the app state did.
      const shown = (await this.deps.store.get(instanceId, messageId))?.message.chat ?? chat
      if (starred) kept[messageId] = shown
      else delete kept[messageId]
      announced.push({ id: messageId, chat: shown, starred })
    }
    if (announced.length === 0) return
    await this.deps.auth(instanceId).setKeys({ [KEY_TYPE]: { [KEY_ID]: kept } })
    for (const data of announced) this.deps.events.emit(instanceId, 'message.starred', data)
  }

  private async read(instanceId: string): Promise<Record<string, string>> {
    const found = await this.deps.auth(instanceId).getKeys(KEY_TYPE, [KEY_ID])
    return { ...(found[KEY_ID] as Record<string, string> | undefined) }
  }
}
