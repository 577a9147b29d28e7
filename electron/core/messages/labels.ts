import { AppError } from '../errors'
import { storedChat } from './stored-chat'
import { LABEL_COLOR_COUNT } from '../contract/labels'
import type { EventSink } from '../contract/events'
import type { WaAppStateChange, WaConnection, WaLabel } from '../contract/network'
import type { Logger } from '../logger'
import type { InstanceAuthStore } from '../store/auth-store'
import { type MessageStore, networkKeyOf } from '../store/message-store'
import { TurnsPerKey } from '../turns-per-key'

/**
 * Kept beside the app-state versions they come from, as the chats' settings and stars are: a new link syncs
 * them again, a wiped link takes them along.
 */
const KEY_TYPE = 'linkdesk-labels'
const KEY_ID = 'labels'

/** A label as Linkdesk shows it. */
export interface LabelView {
  id: string
  name: string
  color: number
}

/** Who made a change: this app's API, or the phone (or another linked device) through the app state. */
type Source = 'api' | 'phone'

interface KeptLabels {
  /** By id; a deleted label stays, marked, so its id is not given again. */
  labels: Record<string, { name: string; color: number; deleted: boolean }>
  /** By chat id (as the app state names it), its label ids. */
  chats: Record<string, string[]>
  /** By message id, its chat and label ids. */
  messages: Record<string, { chat: string; labels: string[] }>
}

type LabelChange = Extract<WaAppStateChange, { kind: 'label_edit' | 'label_chat' | 'label_message' }>

export interface LabelDeskDeps {
  store: MessageStore
  auth(instanceId: string): InstanceAuthStore
  events: EventSink
  logger: Logger
  connection(instanceId: string): Promise<WaConnection>
}

function toggled(list: readonly string[] | undefined, id: string, on: boolean): string[] {
  const rest = (list ?? []).filter((other) => other !== id)
  return on ? [...rest, id] : rest
}

/**
 * A WhatsApp Business account's labels, as its app state carries them: created, edited, deleted and put on
 * chats and messages through the API (sent to the network first, which syncs the phone and the other linked
 * devices) or elsewhere (reported by the adapter). Each change is one event: label.updated, chat.labeled or
 * message.labeled, with its source. A personal account has none: every operation is not_business, and nothing
 * is sent.
 */
export class LabelManagement {
  /** Per instance, one change at a time: an API change holds it until kept, so the network's echo finds it done. */
  private readonly turns = new TurnsPerKey()
  private readonly log: Logger

  constructor(private readonly deps: LabelDeskDeps) {
    this.log = deps.logger.child({ module: 'labels' })
  }

  /** The account's labels (not the deleted ones), by id. */
  async list(instanceId: string): Promise<LabelView[]> {
    await this.businessConnection(instanceId)
    const { labels } = await this.read(instanceId)
    return Object.entries(labels)
      .filter(([, label]) => !label.deleted)
      .map(([id, { name, color }]) => ({ id, name, color }))
      .sort((a, b) => Number(a.id) - Number(b.id))
  }

  /** Creates a label under the next free id; `color` defaults to the next of the apps' colours. */
  async create(instanceId: string, input: { name: string; color?: number }): Promise<LabelView> {
    const connection = await this.businessConnection(instanceId)
    return this.turns.run(instanceId, async () => {
      const kept = await this.read(instanceId)
      const ids = Object.keys(kept.labels).map(Number)
      const id = String(Math.max(0, ...ids) + 1)
      const label = {
        id,
        name: input.name,
        color: input.color ?? ids.length % LABEL_COLOR_COUNT,
        deleted: false,
      }
      await connection.modifyChat('', { kind: 'label_edit', label })
      await this.applyNow(instanceId, [{ kind: 'label_edit', ...label }], 'api')
      return { id, name: label.name, color: label.color }
    })
  }

  /** Renames or recolours a label (what is not given stays). */
  async edit(instanceId: string, id: string, input: { name?: string; color?: number }): Promise<LabelView> {
    const connection = await this.businessConnection(instanceId)
    return this.turns.run(instanceId, async () => {
      const current = this.existing(await this.read(instanceId), id)
      const label = {
        id,
        name: input.name ?? current.name,
        color: input.color ?? current.color,
        deleted: false,
      }
      await connection.modifyChat('', { kind: 'label_edit', label })
      await this.applyNow(instanceId, [{ kind: 'label_edit', ...label }], 'api')
      return { id, name: label.name, color: label.color }
    })
  }

  /** Deletes a label: it comes off every chat and message. */
  async remove(instanceId: string, id: string): Promise<{ id: string; deleted: true }> {
    const connection = await this.businessConnection(instanceId)
    return this.turns.run(instanceId, async () => {
      const current = this.existing(await this.read(instanceId), id)
      const label = { id, name: current.name, color: current.color, deleted: true }
      await connection.modifyChat('', { kind: 'label_edit', label })
      await this.applyNow(instanceId, [{ kind: 'label_edit', ...label }], 'api')
      return { id, deleted: true }
    })
  }

  /** Puts a label on a chat with a stored message (chat_not_found otherwise), or takes it off. */
  async labelChat(
    instanceId: string,
    chat: string,
    id: string,
    labeled: boolean,
  ): Promise<{ chat: string; labels: LabelView[] }> {
    const connection = await this.businessConnection(instanceId)
    const stored = await storedChat(this.deps.store, instanceId, chat)
    return this.turns.run(instanceId, async () => {
      this.existing(await this.read(instanceId), id)
      await connection.modifyChat(stored.chat, { kind: 'label_chat', labelId: id, labeled })
      await this.applyNow(
        instanceId,
        [{ kind: 'label_chat', labelId: id, chat: stored.chat, labeled }],
        'api',
      )
      return {
        chat: stored.chat,
        labels: (await this.ofChats(instanceId, [stored.chat])).get(stored.chat) ?? [],
      }
    })
  }

  /** Puts a label on a stored message (message_not_found otherwise), or takes it off. */
  async labelMessage(
    instanceId: string,
    messageId: string,
    id: string,
    labeled: boolean,
  ): Promise<{ id: string; chat: string; labels: LabelView[] }> {
    const connection = await this.businessConnection(instanceId)
    const stored = await this.deps.store.get(instanceId, messageId)
    if (!stored) {
      throw new AppError('message_not_found', `No stored message has the id ${messageId}.`, {
        details: { parameter: 'message_id' },
      })
    }
    const { chat } = networkKeyOf(stored)
    return this.turns.run(instanceId, async () => {
      this.existing(await this.read(instanceId), id)
      await connection.modifyChat(chat, { kind: 'label_message', labelId: id, messageId, labeled })
      await this.applyNow(
        instanceId,
        [{ kind: 'label_message', labelId: id, chat, messageId, labeled }],
        'api',
      )
      const kept = await this.read(instanceId)
      return { id: messageId, chat, labels: this.views(kept, kept.messages[messageId]?.labels) }
    })
  }

  /** The labels on these chats (none on a personal account's). */
  async ofChats(instanceId: string, chats: readonly string[]): Promise<Map<string, LabelView[]>> {
    const kept = await this.read(instanceId)
    return new Map(chats.map((chat) => [chat, this.views(kept, kept.chats[chat])]))
  }

  /** Label changes the app state made elsewhere (the phone, another linked device): kept, and announced. */
  apply(instanceId: string, changes: readonly LabelChange[]): Promise<void> {
    return this.turns.run(instanceId, () =>
      this.applyNow(instanceId, changes, 'phone').catch((error: unknown) => {
        this.log.error({ err: error, instanceId }, 'keeping labels failed')
        throw error
      }),
    )
  }

  private async applyNow(instanceId: string, changes: readonly LabelChange[], source: Source): Promise<void> {
    const kept = await this.read(instanceId)
    const announced: Array<() => void> = []
    const emit = this.deps.events.emit.bind(this.deps.events)
    for (const change of changes) {
      if (change.kind === 'label_edit') {
        const { id, name, color, deleted } = change
        const before = kept.labels[id]
        if (before && before.name === name && before.color === color && before.deleted === deleted) continue
        kept.labels[id] = { name, color, deleted }
        if (deleted) this.forget(kept, id)
        announced.push(() => emit(instanceId, 'label.updated', { id, name, color, deleted, source }))
      } else if (change.kind === 'label_chat') {
        const { chat, labelId, labeled } = change
        if ((kept.chats[chat] ?? []).includes(labelId) === labeled) continue
        kept.chats[chat] = toggled(kept.chats[chat], labelId, labeled)
        const labels = [...kept.chats[chat]]
        announced.push(() =>
          emit(instanceId, 'chat.labeled', { chat, label_id: labelId, labeled, labels, source }),
        )
      } else {
        const { chat, messageId, labelId, labeled } = change
        const before = kept.messages[messageId]?.labels ?? []
        if (before.includes(labelId) === labeled) continue
        const labels = toggled(before, labelId, labeled)
        if (labels.length > 0) kept.messages[messageId] = { chat, labels }
        else delete kept.messages[messageId]
        announced.push(() =>
          emit(instanceId, 'message.labeled', {
            id: messageId,
            chat,
            label_id: labelId,
            labeled,
            labels,
            source,
          }),
        )
      }
    }
    if (announced.length === 0) return
    await this.deps.auth(instanceId).setKeys({ [KEY_TYPE]: { [KEY_ID]: kept } })
    for (const announce of announced) announce()
  }

  /** A deleted label comes off every chat and message, as the apps show it. */
  private forget(kept: KeptLabels, id: string): void {
    for (const [chat, labels] of Object.entries(kept.chats)) kept.chats[chat] = toggled(labels, id, false)
    for (const [message, entry] of Object.entries(kept.messages)) {
      const labels = toggled(entry.labels, id, false)
      if (labels.length > 0) kept.messages[message] = { ...entry, labels }
      else delete kept.messages[message]
    }
  }

  private views(kept: KeptLabels, ids: readonly string[] | undefined): LabelView[] {
    return (ids ?? []).flatMap((id) => {
      const label = kept.labels[id]
      return label && !label.deleted ? [{ id, name: label.name, color: label.color }] : []
    })
  }

  private existing(kept: KeptLabels, id: string): WaLabel {
    const label = kept.labels[id]
    if (!label || label.deleted) {
      throw new AppError('label_not_found', `This account has no label ${id}.`, {
        details: { parameter: 'label_id' },
      })
    }
    return { id, ...label }
  }

  /** The instance's connection, when its account is a Business one; not_business otherwise (nothing sent). */
  private async businessConnection(instanceId: string): Promise<WaConnection> {
    const connection = await this.deps.connection(instanceId)
    if (!connection.business) {
      throw new AppError(
        'not_business',
        'Labels are for WhatsApp Business accounts: this account is a personal one.',
      )
    }
    return connection
  }

  private async read(instanceId: string): Promise<KeptLabels> {
    const found = await this.deps.auth(instanceId).getKeys(KEY_TYPE, [KEY_ID])
    const kept = found[KEY_ID] as Partial<KeptLabels> | undefined
    return {
      labels: { ...kept?.labels },
      chats: { ...kept?.chats },
      messages: { ...kept?.messages },
    }
  }
}
