import { useCallback } from 'react'
import type { ChatList, ContactList, GroupList } from '../../api/types'
import { useApi } from '../../app/api-context'
import { useLiveEvents } from '../../app/feed-context'
import { useOperation } from '../../app/use-operation'
import { hrefWithQuery } from '../../app/routes'
import { ErrorNotice } from '../../components/ErrorNotice'
import { messageSummary } from '../events/message-summary'
import { ChatFlagActions, ChatFlagBadges } from './ChatFlags'
import { ChatLabelPicker, LabelsSection, readLabels } from './ChatLabels'
import { type PagedList, placed, usePagedList } from './use-paged-list'
import './ChatsPanel.css'
import { CHAT_EVENTS, GROUP_NAME_EVENTS } from '../../api/chat-events'

type ChatPage = ChatList & { next_cursor: string | null }
type ContactPage = ContactList & { next_cursor: string | null }

/** What a chat id shows: a phone number as +digits, a group or a LID as it is. */
function chatNumber(chat: string): string {
  return chat.endsWith('@s.whatsapp.net') ? `+${chat.split('@')[0]}` : chat
}

type Chat = ChatList['chats'][number]
type Contact = ContactList['contacts'][number]

/** Whether chat `a`'s last message is newer than `b`'s (a chat just refreshed goes before an equal one). */
const newerChat = (a: Chat, b: Chat) => Number(a.last_message.timestamp) >= Number(b.last_message.timestamp)
const contactBefore = (a: Contact, b: Contact) => a.chat < b.chat

/**
 * An instance's chats (newest first, with unread counts) and contacts, each a link to write to them, a page at
 * a time. A message event refreshes only its own chat (one read of that chat) and its sender's contact entry
 * (from the event itself): the lists are never read again whole.
 */
export function ChatsPanel({ instanceId }: { instanceId: string }) {
  const api = useApi()
  const chats = usePagedList<Chat>(async (client, cursor) => {
    const page = await client.call<ChatPage>('chats', { instance_id: instanceId, ...(cursor && { cursor }) })
    return { items: page.chats, next_cursor: page.next_cursor }
  }, `chats/${instanceId}`)
  const contacts = usePagedList<Contact>(async (client, cursor) => {
    const page = await client.call<ContactPage>('contacts', {
      instance_id: instanceId,
      ...(cursor && { cursor }),
    })
    return { items: page.contacts, next_cursor: page.next_cursor }
  }, `contacts/${instanceId}`)
  const { update: updateChats } = chats
  const { update: updateContacts } = contacts
  const refreshChat = useCallback(
    async (chat: string) => {
      const { chats: found } = await api.call<ChatPage>('chats', { instance_id: instanceId, number: chat })
      updateChats((items, more) => {
        const [summary] = found
        if (!summary) return items.filter((item) => item.chat !== chat)
        return placed(items, summary, (item) => item.chat, newerChat, more)
      })
    },
    [api, instanceId, updateChats],
  )
  useLiveEvents((event) => {
    if (event.instance_id === instanceId && GROUP_NAME_EVENTS.has(event.event)) void reloadGroups()
    if (event.instance_id === instanceId && event.event === 'label.updated') void reloadLabels()
    if (event.instance_id !== instanceId || !CHAT_EVENTS.has(event.event)) return
    const data = event.data as Partial<Record<string, unknown>>
    if (typeof data.chat === 'string') void refreshChat(data.chat).catch(() => undefined)
    if (event.event !== 'message.received' || data.from_me !== false || typeof data.sender !== 'string')
      return
    const sender = data.sender
    updateContacts((items, more) => {
      const known = items.find((item) => item.chat === sender)
      const contact: Contact = {
        chat: sender,
        phone: typeof data.sender_phone === 'string' ? data.sender_phone : null,
        lid: typeof data.sender_lid === 'string' ? data.sender_lid : null,
        push_name: typeof data.push_name === 'string' ? data.push_name : (known?.push_name ?? null),
        saved_name: known?.saved_name ?? null,
      }
      return placed(items, contact, (item) => item.chat, contactBefore, more)
    })
  })
  const [groups, reloadGroups] = useOperation(
    async (client) =>
      (await client.call<GroupList>('groups', { instance_id: instanceId })).groups.map(
        (group) => [group.id, group.subject] as const,
      ),
    `groups/${instanceId}`,
  )
  const [labelList, reloadLabels] = useOperation(
    (client) => readLabels(client, instanceId),
    `labels/${instanceId}`,
  )
  /** A Business account's labels; null while unknown and for a personal account. */
  const labels = labelList.status === 'ready' ? labelList.data : null
  const subjects = new Map(groups.status === 'ready' ? groups.data : [])
  const pushNames = new Map(
    (contacts.list.status === 'ready' ? contacts.list.items : []).flatMap((contact) =>
      contact.push_name ? [[contact.chat, contact.push_name] as const] : [],
    ),
  )
  /** A chat by the group's subject or the contact's name; its number or id when neither is known. */
  const chatName = (chat: string) => subjects.get(chat) ?? pushNames.get(chat) ?? chatNumber(chat)
  const write = (number: string) => hrefWithQuery('composer', { instance_id: instanceId, number })
  return (
    <div className="chats-panel">
      <section aria-labelledby="chats-title">
        <h2 id="chats-title">Chats</h2>
        {chats.list.status === 'failed' ? (
          <ErrorNotice error={chats.list.error} context="Could not read the chats" />
        ) : null}
        {chats.list.status === 'ready' && chats.list.items.length === 0 ? (
          <p className="hint">No messages yet: chats appear as messages arrive or are sent.</p>
        ) : null}
        <ul aria-label="Chats">
          {(chats.list.status === 'ready' ? chats.list.items : []).map((chat) => (
            <li key={chat.chat}>
              <a href={write(chat.chat)}>{chatName(chat.chat)}</a>
              {chatName(chat.chat) !== chatNumber(chat.chat) && !chat.is_group ? (
                <span className="muted"> {chatNumber(chat.chat)}</span>
              ) : null}
              {chat.unread ? <span className="unread">{chat.unread} unread</span> : null}
              <ChatFlagBadges chat={chat} />
              <span className="muted">
                {' '}
                {messageSummary(chat.last_message as unknown as Record<string, unknown>)}
              </span>
              <ChatFlagActions instanceId={instanceId} chat={chat} name={chatName(chat.chat)} />
              {labels ? (
                <ChatLabelPicker
                  instanceId={instanceId}
                  chat={chat}
                  name={chatName(chat.chat)}
                  labels={labels}
                />
              ) : null}
            </li>
          ))}
        </ul>
        <MoreButton list={chats.list} loadMore={chats.loadMore} label="More chats" />
      </section>
      {labels ? <LabelsSection instanceId={instanceId} labels={labels} /> : null}
      {labelList.status === 'failed' ? (
        <ErrorNotice error={labelList.error} context="Could not read the labels" />
      ) : null}
      <section aria-labelledby="contacts-title">
        <h2 id="contacts-title">Contacts</h2>
        {contacts.list.status === 'failed' ? (
          <ErrorNotice error={contacts.list.error} context="Could not read the contacts" />
        ) : null}
        <ul aria-label="Contacts">
          {(contacts.list.status === 'ready' ? contacts.list.items : []).map((contact) => (
            <li key={contact.chat}>
              <a href={write(contact.chat)}>
                {contact.saved_name ?? contact.push_name ?? chatNumber(contact.chat)}
              </a>
              <span className="muted"> {contact.phone ? `+${contact.phone}` : contact.chat}</span>
            </li>
          ))}
        </ul>
        <MoreButton list={contacts.list} loadMore={contacts.loadMore} label="More contacts" />
      </section>
    </div>
  )
}

/** Loads a list's next page, shown while there is one. */
function MoreButton<T>({
  list,
  loadMore,
  label,
}: {
  list: PagedList<T>
  loadMore: () => Promise<void>
  label: string
}) {
  if (list.status !== 'ready' || list.next === null) return null
  return (
    <button type="button" onClick={() => void loadMore()}>
      {label}
    </button>
  )
}
