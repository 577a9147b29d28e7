import type { ChatModification } from '@whiskeysockets/baileys'
import type { Account } from '../accounts/account'
import type { AppStateLabel, ChatSettings } from '../accounts/app-state'
import { SandboxError } from '../errors'
import { announceAppStateVersion } from '../stanzas/app-state-queries'

/** What the account's app state holds, as the network read it. */
export interface SandboxAppState {
  /** Each collection's version. */
  versions: Record<string, number>
  /** By chat id. */
  chats: Record<string, ChatSettings>
  /** Saved names, by contact chat id. */
  contacts: Record<string, string>
  /** By chat id, the ids of the chat's starred messages. */
  starred: Record<string, string[]>
  /** Business accounts: the labels by id (deleted ones stay, marked). */
  labels: Record<string, AppStateLabel>
  /** Business accounts: per label id, the chats it is on. */
  labeledChats: Record<string, string[]>
  /** Business accounts: per label id, the messages it is on, as `<chat>/<message id>`. */
  labeledMessages: Record<string, string[]>
  /** The versions the account's linked devices asked the patches after, oldest first (the newest 200). */
  requests: Array<{ collection: string; version: number }>
}

/** A change the account's phone makes in its app, as WhatsApp syncs it to the linked devices. */
export interface SandboxAppStateChange {
  /** A chat id or a phone number (digits). */
  chat: string
  archived?: boolean
  pinned?: boolean
  /** Unix milliseconds the mute ends (-1: always); null unmutes. */
  mutedUntil?: number | null
  unread?: boolean
  /** The name the phone saves for the contact. */
  savedName?: string
  /** Clears the chat's messages (the chat stays in the list). */
  clear?: boolean
  /** Deletes the chat from the account's apps. */
  delete?: boolean
}

function chatIdOf(chat: string): string {
  if (/^\d{5,20}$/.test(chat)) return `${chat}@s.whatsapp.net`
  if (/^[\w.:-]+@(s\.whatsapp\.net|g\.us|lid)$/.test(chat)) return chat
  throw new SandboxError('invalid_parameter', 'chat must be a phone number or a chat id.')
}

/** The account's app state as the network read it. */
export function appStateOf(account: Account): SandboxAppState {
  return account.appState.snapshot()
}

/**
 * The phone changes its app state: each setting given is one patch of the collection WhatsApp keeps it in,
 * encoded with the account's key, and the connected linked devices are told the collection moved.
 */
export async function changeAppStateFromPhone(
  account: Account,
  change: SandboxAppStateChange,
): Promise<void> {
  const chat = chatIdOf(change.chat)
  const modifications: ChatModification[] = []
  if (change.archived !== undefined) modifications.push({ archive: change.archived, lastMessages: [] })
  if (change.pinned !== undefined) modifications.push({ pin: change.pinned })
  if (change.mutedUntil !== undefined) modifications.push({ mute: change.mutedUntil })
  if (change.unread !== undefined) modifications.push({ markRead: !change.unread, lastMessages: [] })
  if (change.savedName !== undefined) {
    modifications.push({
      contact: { fullName: change.savedName, firstName: change.savedName.split(' ')[0] ?? change.savedName },
    })
  }
  // A clear or delete of everything up to now: the phone gives no last message, so the range is its time.
  if (change.clear) modifications.push({ clear: true, lastMessages: [] })
  if (change.delete) modifications.push({ delete: true, lastMessages: [] })
  if (modifications.length === 0)
    throw new SandboxError('missing_parameter', 'give at least one setting to change.')
  for (const modification of modifications) {
    const { collection, version } = await account.appState.change(modification, chat)
    announceAppStateVersion(account, collection, version)
  }
}

/**
 * A Business account's phone edits a label (`name`, `color`, `deleted`; a new id creates one) or puts it on or
 * takes it off a chat (`chat`, `labeled`; with `message`, that message of the chat).
 */
export type SandboxLabelChange =
  | { label: string; name: string; color?: number; deleted?: boolean }
  | { label: string; chat: string; labeled: boolean; message?: string }

/**
 * The phone changes a label in its app (WhatsApp Business): one patch of the `regular` collection, encoded with
 * the account's key, and the connected linked devices are told. A personal account: SandboxError('not_business').
 */
export async function changeLabelFromPhone(account: Account, change: SandboxLabelChange): Promise<void> {
  if (!account.business) {
    throw new SandboxError('not_business', `${account.phone} is a personal account: it has no labels.`)
  }
  if (!/^\d{1,10}$/.test(change.label)) {
    throw new SandboxError('invalid_parameter', 'label must be a label id (digits).')
  }
  let modification: ChatModification
  let chat = ''
  if ('name' in change) {
    const color = change.color ?? 0
    if (!Number.isInteger(color) || color < 0 || color > 19) {
      throw new SandboxError('invalid_parameter', 'color must be a colour index from 0 to 19.')
    }
    modification = {
      addLabel: { id: change.label, name: change.name, color, deleted: change.deleted ?? false },
    }
  } else {
    chat = chatIdOf(change.chat)
    const labelId = change.label
    modification =
      change.message === undefined
        ? change.labeled
          ? { addChatLabel: { labelId } }
          : { removeChatLabel: { labelId } }
        : change.labeled
          ? { addMessageLabel: { labelId, messageId: change.message } }
          : { removeMessageLabel: { labelId, messageId: change.message } }
  }
  const { collection, version } = await account.appState.change(modification, chat)
  announceAppStateVersion(account, collection, version)
}
