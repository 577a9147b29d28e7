import type { ChatList, ContactList } from '../../api/types'
import { useLiveEvents } from '../../app/feed-context'
import { hrefWithQuery } from '../../app/routes'
import { useOperation } from '../../app/use-operation'
import { ErrorNotice } from '../../components/ErrorNotice'
import { messageSummary } from '../events/message-summary'
import './ChatsPanel.css'

/** What a chat id shows: a phone number as +digits, a group or a LID as it is. */
function chatName(chat: string): string {
  return chat.endsWith('@s.whatsapp.net') ? `+${chat.split('@')[0]}` : chat
}

/** An instance's chats (newest first, with unread counts) and contacts, each a link to write to them. */
export function ChatsPanel({ instanceId }: { instanceId: string }) {
  const [chats, reloadChats] = useOperation(
    async (api) => (await api.call<ChatList>('chats', { instance_id: instanceId })).chats,
    `chats/${instanceId}`,
  )
  const [contacts, reloadContacts] = useOperation(
    async (api) => (await api.call<ContactList>('contacts', { instance_id: instanceId })).contacts,
    `contacts/${instanceId}`,
  )
  useLiveEvents((event) => {
    if (event.instance_id !== instanceId || !event.event.startsWith('message.')) return
    void reloadChats()
    void reloadContacts()
  })
  const write = (number: string) => hrefWithQuery('composer', { instance_id: instanceId, number })
  return (
    <div className="chats-panel">
      <section aria-labelledby="chats-title">
        <h2 id="chats-title">Chats</h2>
        {chats.status === 'failed' ? (
          <ErrorNotice error={chats.error} context="Could not read the chats" />
        ) : null}
        {chats.status === 'ready' && chats.data.length === 0 ? (
          <p className="hint">No messages yet: chats appear as messages arrive or are sent.</p>
        ) : null}
        <ul aria-label="Chats">
          {(chats.status === 'ready' ? chats.data : []).map((chat) => (
            <li key={chat.chat}>
              <a href={write(chat.chat)}>{chatName(chat.chat)}</a>
              {chat.unread ? <span className="unread">{chat.unread} unread</span> : null}
              <span className="muted">
                {' '}
                {messageSummary(chat.last_message as unknown as Record<string, unknown>)}
              </span>
            </li>
          ))}
        </ul>
      </section>
      <section aria-labelledby="contacts-title">
        <h2 id="contacts-title">Contacts</h2>
        {contacts.status === 'failed' ? (
          <ErrorNotice error={contacts.error} context="Could not read the contacts" />
        ) : null}
        <ul aria-label="Contacts">
          {(contacts.status === 'ready' ? contacts.data : []).map((contact) => (
            <li key={contact.chat}>
              <a href={write(contact.chat)}>{contact.push_name ?? chatName(contact.chat)}</a>
              <span className="muted"> {contact.phone ? `+${contact.phone}` : contact.chat}</span>
            </li>
          ))}
        </ul>
      </section>
    </div>
  )
}
