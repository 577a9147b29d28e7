import type {
  BaileysEventMap,
  ChatModification,
  ChatMutation,
  ChatUpdate,
  WAMessageUpdate,
} from '@whiskeysockets/baileys'
import type {
  WaAppStateChange,
  WaChatModification,
  WaChatSettingsChange,
  WaLastMessage,
} from '../contract/network'
import { toProtocolKey } from './message-mapping'

function lastMessages(last: WaLastMessage) {
  return [{ key: toProtocolKey(last.key), messageTimestamp: last.timestamp }]
}

/** A chat setting change as Baileys' chatModify takes it. */
export function toChatModification(change: WaChatModification): ChatModification {
  switch (change.kind) {
    case 'archive':
      return { archive: change.archived, lastMessages: lastMessages(change.last) }
    case 'pin':
      return { pin: change.pinned }
    case 'mute':
      return { mute: change.until }
    case 'unread':
      return { markRead: !change.unread, lastMessages: lastMessages(change.last) }
    case 'star':
      return {
        star: { messages: [{ id: change.message.id, fromMe: change.message.fromMe }], star: change.starred },
      }
    case 'clear':
      return { clear: true, lastMessages: lastMessages(change.last) }
    case 'delete':
      return { delete: true, lastMessages: lastMessages(change.last) }
    case 'label_edit': {
      const { id, name, color, deleted } = change.label
      return { addLabel: { id, name, color, deleted } }
    }
    case 'label_chat':
      return change.labeled
        ? { addChatLabel: { labelId: change.labelId } }
        : { removeChatLabel: { labelId: change.labelId } }
    case 'label_message': {
      const { labelId, messageId } = change
      return change.labeled
        ? { addMessageLabel: { labelId, messageId } }
        : { removeMessageLabel: { labelId, messageId } }
    }
  }
}

/** A label edit Baileys reports from the app state (`labels.edit`; index label_edit, id). */
export function labelEditChange(label: BaileysEventMap['labels.edit']): WaAppStateChange {
  return {
    kind: 'label_edit',
    id: label.id,
    name: label.name ?? '',
    color: label.color ?? 0,
    deleted: Boolean(label.deleted),
  }
}

/**
 * A label put on or taken off a chat (index label_jid) or a message (label_message) that Baileys reports from
 * the app state (`labels.association`).
 */
export function labelAssociationChange({
  type,
  association,
}: BaileysEventMap['labels.association']): WaAppStateChange {
  const labeled = type === 'add'
  const { labelId, chatId: chat } = association
  return 'messageId' in association
    ? { kind: 'label_message', labelId, chat, messageId: association.messageId, labeled }
    : { kind: 'label_chat', labelId, chat, labeled }
}

/** Stars and unstars Baileys reports from the app state (a `messages.update` carrying `starred`). */
export function starChanges(updates: readonly WAMessageUpdate[]): WaAppStateChange[] {
  return updates.flatMap(({ key, update }) =>
    typeof update.starred === 'boolean' && key.remoteJid && key.id
      ? [
          {
            kind: 'star' as const,
            chat: key.remoteJid,
            messageId: key.id,
            fromMe: Boolean(key.fromMe),
            starred: update.starred,
          },
        ]
      : [],
  )
}

/**
 * The settings Baileys reports from the app state (its `chats.update`): archived, pinned (a time, or null),
 * muteEndTime (null: unmuted), unreadCount (-1: marked unread; 0: read) and ephemeralExpiration (the
 * disappearing-messages timer, set by a protocol message in the chat; null: off). Other chat updates (such as
 * unread counts from messages) carry none of these and are left out.
 */
export function chatSettingsChanges(updates: readonly ChatUpdate[]): WaChatSettingsChange[] {
  return updates.flatMap((update) => {
    if (!update.id) return []
    const change: WaChatSettingsChange = { chat: update.id }
    if (typeof update.archived === 'boolean') change.archived = update.archived
    if (update.pinned !== undefined) change.pinned = update.pinned !== null
    if (update.muteEndTime !== undefined) {
      change.mutedUntil = update.muteEndTime === null ? null : Number(update.muteEndTime)
    }
    if (update.unreadCount === -1) change.unread = true
    else if (update.unreadCount === 0) change.unread = false
    // A disappearing-messages setting (a protocol message in the chat) Baileys reports on the chat.
    if (update.ephemeralExpiration !== undefined)
      change.disappearing = Number(update.ephemeralExpiration ?? 0)
    return Object.keys(change).length > 1 ? [change] : []
  })
}

/**
 * A chat cleared in the app state (index `clearChat, chat, …`), which Baileys reads but reports to no listener
 * (it logs the mutation as unprocessable): the messages up to the range's last one went, or, with no range, those
 * up to the moment of the clear.
 */
export function clearedChat(mutation: ChatMutation): WaAppStateChange | undefined {
  const [type, chat] = mutation.index
  const action = mutation.syncAction.value
  if (type !== 'clearChat' || !chat || !action?.clearChatAction) return undefined
  const last = Number(action.clearChatAction.messageRange?.lastMessageTimestamp ?? 0)
  const at = Math.floor(Number(action.timestamp ?? 0) / 1000)
  return { kind: 'clear', chat, upTo: last > 0 ? last : at }
}

/** Chats deleted in the app state (Baileys' `chats.delete`): the messages that came before the report went. */
export function deletedChats(chats: readonly string[], now: number): WaAppStateChange[] {
  const upTo = Math.floor(now / 1000)
  return chats.map((chat) => ({ kind: 'delete' as const, chat, upTo }))
}
