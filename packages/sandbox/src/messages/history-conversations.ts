import { proto } from '@whiskeysockets/baileys'
import type { Account } from '../accounts/account'
import type { SandboxNetwork } from '../network'
import type { InboxEntry } from './inbox'

/** What the phone hands a new device: its most recent chats, each with its newest messages. */
export const HISTORY_LIMITS = { chats: 30, messagesPerChat: 50 }

function historyMessage(network: SandboxNetwork, account: Account, entry: InboxEntry): proto.IWebMessageInfo {
  const sender = network.directory.get(entry.from)
  const group = entry.chat.endsWith('@g.us')
  return {
    key: {
      remoteJid: group ? entry.chat : (sender?.pnJid ?? `${entry.from}@s.whatsapp.net`),
      fromMe: false,
      id: entry.id,
      ...(group ? { participant: sender?.pnJid ?? `${entry.from}@s.whatsapp.net` } : {}),
    },
    message: { conversation: entry.text },
    messageTimestamp: entry.timestamp,
    pushName: sender?.name ?? null,
    status: proto.WebMessageInfo.Status.DELIVERY_ACK,
  }
}

/**
 * The conversations of the account's phone, as its history sync carries them: the text messages it received
 * (the sandbox's phones keep no other history), grouped by chat, newest chats and messages first. Every one
 * is unread: the simulated phone never opens a chat. A 1:1 chat carries the contact's LID beside its number.
 */
export function historyConversations(network: SandboxNetwork, account: Account): proto.IConversation[] {
  const byChat = new Map<string, InboxEntry[]>()
  for (const entry of account.inbox.values()) {
    if (entry.type !== 'text' || entry.text === null || entry.from === account.phone) continue
    const chat = entry.chat.endsWith('@g.us') ? entry.chat : entry.from
    byChat.set(chat, [...(byChat.get(chat) ?? []), entry])
  }
  const newest = (entries: InboxEntry[]) => Math.max(...entries.map((entry) => entry.timestamp))
  return [...byChat]
    .sort(([, a], [, b]) => newest(b) - newest(a))
    .slice(0, HISTORY_LIMITS.chats)
    .map(([chat, entries]) => {
      // The inbox keeps arrival order: newest first is its reverse, ordered by time.
      const messages = entries
        .reverse()
        .sort((a, b) => b.timestamp - a.timestamp)
        .slice(0, HISTORY_LIMITS.messagesPerChat)
        .map((entry) => ({ message: historyMessage(network, account, entry) }))
      const contact = chat.endsWith('@g.us') ? undefined : network.directory.get(chat)
      return {
        id: contact?.pnJid ?? chat,
        ...(contact ? { lidJid: contact.lidJid } : { name: network.groups.get(chat)?.subject ?? null }),
        unreadCount: messages.length,
        conversationTimestamp: newest(entries),
        messages,
      }
    })
}
