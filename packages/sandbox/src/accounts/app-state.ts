import { randomBytes } from 'node:crypto'
import {
  type ChatModification,
  chatModificationToAppPatch,
  decodePatches,
  encodeSyncdPatch,
  type LTHashState,
  type WAPatchName,
  newLTHashState,
  proto,
} from '@whiskeysockets/baileys'

/** What the account's apps show beside a chat, as its app state says (absent: never set). */
export interface ChatSettings {
  archived?: boolean
  pinned?: boolean
  /** Unix milliseconds the mute ends (-1: always); null: not muted. */
  mutedUntil?: number | null
  /** Marked unread by hand. */
  unread?: boolean
  /** Unix milliseconds the chat was last cleared (its messages up to then gone from the account's apps). */
  clearedAt?: number
  /** Unix milliseconds the chat was deleted from the account's apps (its other settings went with it). */
  deletedAt?: number
}

/** What the network keeps of an account's app state: the phone's sync key and each collection's patches. */
export interface AppStateRecord {
  /** base64 */
  keyId: string
  /** base64 */
  keyData: string
  /** Per collection, its patches as sent (base64 SyncdPatch), version n at index n - 1. */
  patches: Record<string, string[]>
  /** Per chat id, its settings, read from the patches. */
  chats?: Record<string, ChatSettings>
  /** Per contact chat id, the name saved in the phone's address book. */
  contacts?: Record<string, string>
  /** Per chat id, the ids of its starred messages. */
  starred?: Record<string, string[]>
  /** Business accounts: the labels, by id (a deleted one stays, marked deleted, as the app state keeps it). */
  labels?: Record<string, AppStateLabel>
  /** Business accounts: per label id, the chats it is on. */
  labeledChats?: Record<string, string[]>
  /** Business accounts: per label id, the messages it is on, as `<chat>/<message id>`. */
  labeledMessages?: Record<string, string[]>
}

/** A Business account's label as its app state carries it (collection regular, index `label_edit`, id). */
export interface AppStateLabel {
  name: string
  /** The apps' colour index (0–19). */
  color: number
  deleted: boolean
  /** The id of the label the apps predefine it from, if any. */
  predefinedId?: number
}

/** Patches that carry labels: refused for a personal account, as WhatsApp offers labels only to Business. */
export class LabelsNotAllowed extends Error {
  constructor() {
    super('labels are for WhatsApp Business accounts')
    this.name = 'LabelsNotAllowed'
  }
}

/** A setting a patch changed that the network itself acts on. */
export type AppStateChange = { kind: 'push_name'; name: string }

export function newAppStateRecord(): AppStateRecord {
  return {
    keyId: randomBytes(6).toString('base64'),
    keyData: randomBytes(32).toString('base64'),
    patches: {},
  }
}

/** The logger decodePatches reports a patch it cannot verify to (it skips such a patch instead of throwing). */
function failureRecorder(failures: string[]) {
  const quiet = () => undefined
  return {
    warn: (_: unknown, message?: string) => failures.push(message ?? 'refused'),
    trace: quiet,
    debug: quiet,
  }
}

/**
 * An account's app state as the server keeps it: the real server stores the patches and hands them to the
 * account's other devices; the sandbox also reads them with the phone's key (the phone shared it), checking
 * each patch's MACs and its snapshot MAC over the collection's LTHash as Baileys does, to apply what the
 * network shows others (the display name) and to know what the phone shows (archived, pinned, muted, unread
 * chats; contacts' saved names). The phone encodes its own changes with the same key.
 */
export class AppState {
  /** Each collection's LTHash state at its current version, rebuilt from the patches on first use. */
  private readonly states = new Map<string, LTHashState>()
  /** The versions devices asked the patches after (in memory, the newest 200). */
  private readonly asked: Array<{ collection: string; version: number }> = []

  constructor(
    private readonly record: AppStateRecord,
    private readonly save: () => void,
  ) {}

  get key(): { id: Buffer; data: Buffer } {
    return { id: Buffer.from(this.record.keyId, 'base64'), data: Buffer.from(this.record.keyData, 'base64') }
  }

  version(collection: string): number {
    return this.record.patches[collection]?.length ?? 0
  }

  /** The patches after `version`, each carrying its own version. */
  patchesAfter(collection: string, version: number): Buffer[] {
    return (this.record.patches[collection] ?? []).slice(version).map((patch) => Buffer.from(patch, 'base64'))
  }

  /** A device asked for the collection's patches after `version`. */
  requested(collection: string, version: number): void {
    this.asked.push({ collection, version })
    if (this.asked.length > 200) this.asked.shift()
  }

  /** The collections' versions, the chats' settings, the saved names and the versions devices asked from. */
  snapshot(): {
    versions: Record<string, number>
    chats: Record<string, ChatSettings>
    contacts: Record<string, string>
    starred: Record<string, string[]>
    labels: Record<string, AppStateLabel>
    labeledChats: Record<string, string[]>
    labeledMessages: Record<string, string[]>
    requests: Array<{ collection: string; version: number }>
  } {
    const versions = Object.fromEntries(
      Object.keys(this.record.patches).map((name) => [name, this.version(name)]),
    )
    return {
      versions,
      chats: structuredClone(this.record.chats ?? {}),
      contacts: { ...this.record.contacts },
      starred: structuredClone(this.record.starred ?? {}),
      labels: structuredClone(this.record.labels ?? {}),
      labeledChats: structuredClone(this.record.labeledChats ?? {}),
      labeledMessages: structuredClone(this.record.labeledMessages ?? {}),
      requests: [...this.asked],
    }
  }

  /** A chat's settings as the account's app state has them. */
  chat(chat: string): ChatSettings {
    return { ...this.record.chats?.[chat] }
  }

  /** The name the phone saved for a contact, if any. */
  savedName(chat: string): string | undefined {
    return this.record.contacts?.[chat]
  }

  /**
   * Keeps a device's patch as the collection's next version and answers the settings it changed. A patch
   * under another key, with a MAC that does not verify, or whose snapshot MAC does not match the collection's
   * LTHash after it, is refused (Error) and nothing is kept; so is a patch carrying labels when `labels` is false
   * (LabelsNotAllowed: a personal account).
   */
  async apply(
    collection: string,
    encoded: Uint8Array,
    { labels }: { labels: boolean },
  ): Promise<AppStateChange[]> {
    const patch = proto.SyncdPatch.decode(encoded)
    if (Buffer.from(patch.keyId?.id ?? []).toString('base64') !== this.record.keyId) {
      throw new Error('the patch is not under the account’s app-state key')
    }
    const version = this.version(collection) + 1
    patch.version = { version }
    const failures: string[] = []
    const { state, mutationMap } = await decodePatches(
      collection as WAPatchName,
      [proto.SyncdPatch.decode(proto.SyncdPatch.encode(patch).finish())],
      await this.stateOf(collection),
      (keyId) => this.keyData(keyId),
      {},
      undefined,
      failureRecorder(failures) as never,
    )
    if (failures.length > 0) throw new Error(`the patch does not verify: ${failures.join('; ')}`)
    const mutations = Object.values(mutationMap)
    if (!labels && mutations.some(({ syncAction }) => carriesLabel(syncAction.value))) {
      throw new LabelsNotAllowed()
    }
    const changes = mutations.flatMap(({ syncAction, index }) => this.take(syncAction.value, index))
    this.keep(collection, patch, state)
    return changes
  }

  /**
   * The phone's own change, as its app makes it (Baileys' chat modifications: archive, pin, mute, mark read,
   * clear, delete, a contact's name…): encoded with the account's key onto the collection, kept as its next version.
   * Answers the collection and its new version, for the devices to be told.
   */
  async change(
    modification: ChatModification,
    chat: string,
  ): Promise<{ collection: string; version: number }> {
    const create = chatModificationToAppPatch(modification, chat)
    const { patch, state } = await encodeSyncdPatch(
      create,
      this.record.keyId,
      await this.stateOf(create.type),
      (keyId) => this.keyData(keyId),
    )
    const syncd = proto.SyncdPatch.fromObject({ ...patch, version: { version: state.version } })
    this.take(create.syncAction, create.index)
    this.keep(create.type, syncd, state)
    return { collection: create.type, version: state.version }
  }

  private async keyData(keyId: string): Promise<proto.Message.IAppStateSyncKeyData | undefined> {
    return keyId === this.record.keyId
      ? proto.Message.AppStateSyncKeyData.fromObject({ keyData: this.key.data })
      : undefined
  }

  private async stateOf(collection: string): Promise<LTHashState> {
    const known = this.states.get(collection)
    if (known) return known
    const patches = this.patchesAfter(collection, 0).map((bytes) => proto.SyncdPatch.decode(bytes))
    const { state } = await decodePatches(
      collection as WAPatchName,
      patches,
      newLTHashState(),
      (keyId) => this.keyData(keyId),
      {},
    )
    this.states.set(collection, state)
    return state
  }

  private keep(collection: string, patch: proto.ISyncdPatch, state: LTHashState): void {
    const list = (this.record.patches[collection] ??= [])
    list.push(Buffer.from(proto.SyncdPatch.encode(patch).finish()).toString('base64'))
    this.states.set(collection, state)
    this.save()
  }

  /** Applies what one mutation sets to the record; answers what the network itself acts on. */
  private take(action: proto.ISyncActionValue | null | undefined, index: string[]): AppStateChange[] {
    const [, chat, messageId] = index
    if (!action) return []
    if (action.labelEditAction || action.labelAssociationAction) {
      this.takeLabel(action, index)
      return []
    }
    if (action.pushNameSetting?.name) return [{ kind: 'push_name', name: action.pushNameSetting.name }]
    if (!chat) return []
    if (action.contactAction) {
      const name = action.contactAction.fullName ?? action.contactAction.firstName
      if (name) (this.record.contacts ??= {})[chat] = name
      return []
    }
    if (action.starAction && messageId) {
      // index: star, chat, message id, from me (1/0), participant
      const starred = new Set((this.record.starred ??= {})[chat])
      if (action.starAction.starred) starred.add(messageId)
      else starred.delete(messageId)
      this.record.starred[chat] = [...starred]
      return []
    }
    const at = Number(action.timestamp ?? 0) || Date.now()
    if (action.clearChatAction || action.deleteChatAction) {
      // index: clearChat, chat, delete starred (1/0), delete media (1/0); deleteChat, chat, delete media (1/0).
      // Both take the starred messages with them, as Baileys sends them.
      delete (this.record.starred ??= {})[chat]
      const chats = (this.record.chats ??= {})
      chats[chat] = action.deleteChatAction ? { deletedAt: at } : { ...chats[chat], clearedAt: at }
      return []
    }
    const settings = ((this.record.chats ??= {})[chat] ??= {})
    if (action.archiveChatAction) settings.archived = Boolean(action.archiveChatAction.archived)
    if (action.pinAction) settings.pinned = Boolean(action.pinAction.pinned)
    if (action.muteAction) {
      settings.mutedUntil = action.muteAction.muted ? Number(action.muteAction.muteEndTimestamp ?? -1) : null
    }
    if (action.markChatAsReadAction) settings.unread = !action.markChatAsReadAction.read
    return []
  }

  /**
   * A label edited (index: label_edit, id) or put on or taken off a chat (label_jid, label id, chat) or a message
   * (label_message, label id, chat, message id, 0, 0).
   */
  private takeLabel(action: proto.ISyncActionValue, index: string[]): void {
    const [type, id, chat, messageId] = index
    if (!id) return
    const edit = action.labelEditAction
    if (edit && type === 'label_edit') {
      ;(this.record.labels ??= {})[id] = {
        name: edit.name ?? '',
        color: edit.color ?? 0,
        deleted: Boolean(edit.deleted),
        ...(edit.predefinedId ? { predefinedId: edit.predefinedId } : {}),
      }
      return
    }
    const labeled = Boolean(action.labelAssociationAction?.labeled)
    const table =
      type === 'label_jid' && chat
        ? (this.record.labeledChats ??= {})
        : type === 'label_message' && chat && messageId
          ? (this.record.labeledMessages ??= {})
          : undefined
    if (!table) return
    const entry = type === 'label_jid' ? chat! : `${chat}/${messageId}`
    const on = new Set(table[id])
    if (labeled) on.add(entry)
    else on.delete(entry)
    table[id] = [...on]
  }
}

function carriesLabel(action: proto.ISyncActionValue | null | undefined): boolean {
  return Boolean(action?.labelEditAction || action?.labelAssociationAction)
}
