import { useCallback, useEffect, useRef, useState } from 'react'
import type { ApiClient } from '../../api/client'
import type { ChatList, ContactList, GroupList } from '../../api/types'
import { useApi } from '../../app/api-context'
import { useLiveEvents } from '../../app/feed-context'
import { CHAT_EVENTS, GROUP_NAME_EVENTS } from '../../api/chat-events'

export type Chat = ChatList['chats'][number]
type ChatPage = ChatList & { next_cursor: string | null }
type ContactPage = ContactList & { next_cursor: string | null }

export type ChatListState =
  { status: 'loading' } | { status: 'ready'; chats: Chat[] } | { status: 'failed'; error: unknown }

/** Newest last message first; a pinned chat before every other, as the apps list them. */
function chatOrder(a: Chat, b: Chat): number {
  if (a.pinned !== b.pinned) return a.pinned ? -1 : 1
  return Number(b.last_message.timestamp) - Number(a.last_message.timestamp)
}

/** Every page of a list operation, read one after the other. */
async function everyPage<T>(
  read: (cursor: string | undefined) => Promise<{ items: T[]; next: string | null }>,
) {
  const items: T[] = []
  let cursor: string | undefined
  do {
    const page = await read(cursor)
    items.push(...page.items)
    cursor = page.next ?? undefined
  } while (cursor)
  return items
}

/** What a chat id shows: a phone number as +digits, a group or a LID as it is. */
export function chatNumber(chat: string): string {
  return chat.endsWith('@s.whatsapp.net') ? `+${chat.split('@')[0]}` : chat
}

async function readNames(api: ApiClient, instanceId: string): Promise<Map<string, string>> {
  const [contacts, groups] = await Promise.all([
    everyPage(async (cursor) => {
      const page = await api.call<ContactPage>('contacts', { instance_id: instanceId, limit: 500, cursor })
      return { items: page.contacts, next: page.next_cursor }
    }),
    api.call<GroupList>('groups', { instance_id: instanceId }).then(
      (list) => list.groups,
      () => [],
    ),
  ])
  const names = new Map<string, string>()
  for (const contact of contacts) {
    const name = contact.saved_name ?? contact.push_name
    if (name) names.set(contact.chat, name)
  }
  for (const group of groups) names.set(group.id, group.subject)
  return names
}

/**
 * An instance's whole chat list (every page, read once: 2,000 chats are four reads) with the names of its
 * contacts and groups, kept current by the live events: a message refreshes only its own chat.
 */
export function useChatList(instanceId: string): {
  list: ChatListState
  names: ReadonlyMap<string, string>
  nameOf(chat: string): string
} {
  const api = useApi()
  const [list, setList] = useState<ChatListState>({ status: 'loading' })
  const [names, setNames] = useState<ReadonlyMap<string, string>>(new Map())
  const ticket = useRef(0)

  useEffect(() => {
    if (!instanceId) return
    const mine = ++ticket.current
    setList({ status: 'loading' })
    everyPage(async (cursor) => {
      const page = await api.call<ChatPage>('chats', { instance_id: instanceId, limit: 500, cursor })
      return { items: page.chats, next: page.next_cursor }
    }).then(
      (chats) => mine === ticket.current && setList({ status: 'ready', chats: chats.sort(chatOrder) }),
      (error: unknown) => mine === ticket.current && setList({ status: 'failed', error }),
    )
    readNames(api, instanceId).then(
      (read) => mine === ticket.current && setNames(read),
      () => undefined,
    )
  }, [api, instanceId])

  const refreshChat = useCallback(
    async (chat: string) => {
      const { chats } = await api.call<ChatPage>('chats', { instance_id: instanceId, number: chat })
      setList((now) => {
        if (now.status !== 'ready') return now
        const rest = now.chats.filter(
          (item) => item.chat !== chat && !chats.some((c) => c.chat === item.chat),
        )
        return { status: 'ready', chats: [...rest, ...chats].sort(chatOrder) }
      })
    },
    [api, instanceId],
  )

  useLiveEvents((event) => {
    if (event.instance_id !== instanceId) return
    const data = event.data as Partial<Record<string, unknown>>
    if (GROUP_NAME_EVENTS.has(event.event)) void readNames(api, instanceId).then(setNames, () => undefined)
    if (!CHAT_EVENTS.has(event.event) || typeof data.chat !== 'string') return
    void refreshChat(data.chat).catch(() => undefined)
    const sender = data.sender
    if (
      event.event === 'message.received' &&
      typeof sender === 'string' &&
      typeof data.push_name === 'string'
    ) {
      const pushName = data.push_name
      setNames((now) => (now.has(sender) ? now : new Map(now).set(sender, pushName)))
    }
  })

  const nameOf = useCallback((chat: string) => names.get(chat) ?? chatNumber(chat), [names])
  return { list, names, nameOf }
}
