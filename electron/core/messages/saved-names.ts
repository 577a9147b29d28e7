import type { Logger } from '../logger'
import type { InstanceAuthStore } from '../store/auth-store'

/** Kept beside the app-state versions they come from, as the chats' settings are (chat-settings.ts). */
const KEY_TYPE = 'linkdesk-saved-names'
const KEY_ID = 'contacts'

/**
 * The names the phone's owner saved for contacts, from the account's app state: after linking (the first
 * sync) and on every rename, by chat id. contacts shows them beside the names people gave themselves.
 */
export class SavedNames {
  private turn: Promise<unknown> = Promise.resolve()
  private readonly log: Logger

  constructor(
    private readonly auth: (instanceId: string) => InstanceAuthStore,
    logger: Logger,
  ) {
    this.log = logger.child({ module: 'saved-names' })
  }

  /** Keeps names as they arrived (the newest for a chat wins); a failure is logged. */
  keep(instanceId: string, names: ReadonlyArray<{ chat: string; name: string }>): Promise<void> {
    const work = this.turn.then(async () => {
      const kept = await this.read(instanceId)
      for (const { chat, name } of names) kept[chat] = name
      await this.auth(instanceId).setKeys({ [KEY_TYPE]: { [KEY_ID]: kept } })
    })
    this.turn = work.catch((error: unknown) =>
      this.log.error({ err: error, instanceId }, 'keeping saved names failed'),
    )
    return this.turn.then(() => undefined)
  }

  /** The saved names of these chats (those without one are left out). */
  async of(instanceId: string, chats: readonly string[]): Promise<Map<string, string>> {
    const kept = await this.read(instanceId)
    return new Map(chats.flatMap((chat) => (kept[chat] ? [[chat, kept[chat]] as const] : [])))
  }

  private async read(instanceId: string): Promise<Record<string, string>> {
    const found = await this.auth(instanceId).getKeys(KEY_TYPE, [KEY_ID])
    return { ...(found[KEY_ID] as Record<string, string> | undefined) }
  }
}
