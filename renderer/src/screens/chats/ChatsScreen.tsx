import { useEffect, useId, useState } from 'react'
import { useSandbox } from '../../app/service-context'
import { EmptyState } from '../../components/EmptyState'
import { InstanceSelect } from '../../components/InstanceSelect'
import { ScreenHeader } from '../../components/ScreenHeader'
import { useInstances } from '../instances/use-instances'
import { ContactPanel } from '../sandbox/ContactPanel'
import { useSandboxAccounts } from '../sandbox/use-sandbox-accounts'
import { Avatar } from './Avatar'
import { ChatList } from './ChatList'
import { chatHref } from './chat-href'
import { NotificationSettings } from './NotificationSettings'
import { Thread } from './Thread'
import { chatNumber, useChatList } from './use-chat-list'
import './ChatsScreen.css'

const MARK_READ_KEY = 'linkdesk.chats.markRead'

/** Whether opening a chat marks it read: on unless the person turned it off (kept in this window). */
function useMarkReadChoice(): [boolean, (value: boolean) => void] {
  const [value, setValue] = useState(() => localStorage.getItem(MARK_READ_KEY) !== 'false')
  return [
    value,
    (next) => {
      localStorage.setItem(MARK_READ_KEY, String(next))
      setValue(next)
    },
  ]
}

/**
 * The inbox: an instance's chats (newest first, searchable, live) beside the open chat's thread and its
 * message box. The address names the instance and the chat, so a notification or a link opens it.
 */
export function ChatsScreen({ instanceId, chat }: { instanceId: string; chat: string | null }) {
  const [instances] = useInstances()
  const known = instances.status === 'ready' ? instances.data : []
  const { list, nameOf } = useChatList(instanceId)
  const [markRead, setMarkRead] = useMarkReadChoice()
  const markReadId = useId()
  const open = list.status === 'ready' ? list.chats.find((item) => item.chat === chat) : undefined
  const choose = (id: string) => {
    window.location.hash = chatHref(id)
  }

  return (
    <section aria-labelledby="chats-title" className="chats-screen">
      <ScreenHeader
        id="chats-title"
        title="Chats"
        lead="Every conversation of a linked account: read a chat's thread and answer it, as on the phone."
      />
      <div className="chats-toolbar">
        <InstanceSelect value={instanceId} onChange={choose} />
        <div className="field-inline">
          <input
            id={markReadId}
            type="checkbox"
            checked={markRead}
            onChange={(event) => setMarkRead(event.target.checked)}
          />
          <label htmlFor={markReadId}>Mark a chat read when I open it (the contact sees blue ticks)</label>
        </div>
        {instanceId ? <NotificationSettings instanceId={instanceId} /> : null}
      </div>
      {instances.status === 'ready' && known.length === 0 ? (
        <EmptyState title="No instances yet">
          <p>
            Create and link an instance on the <a href="#/instances">Instances</a> screen: its chats appear
            here.
          </p>
        </EmptyState>
      ) : null}
      {instanceId ? (
        <div className="chats-layout">
          <ChatList
            instanceId={instanceId}
            list={list}
            nameOf={nameOf}
            openChat={chat}
            onOpen={(id) => {
              window.location.hash = chatHref(instanceId, id)
            }}
          />
          {chat ? (
            <OpenChat
              key={`${instanceId}/${chat}`}
              instanceId={instanceId}
              chat={chat}
              name={nameOf(chat)}
              isGroup={open?.is_group ?? chat.endsWith('@g.us')}
              unread={open?.unread ?? 0}
              markRead={markRead}
              nameOf={nameOf}
            />
          ) : (
            <p className="hint chats-none">Choose a chat to read its thread and answer it.</p>
          )}
        </div>
      ) : null}
    </section>
  )
}

function OpenChat({
  instanceId,
  chat,
  name,
  isGroup,
  unread,
  markRead,
  nameOf,
}: {
  instanceId: string
  chat: string
  name: string
  isGroup: boolean
  unread: number
  markRead: boolean
  nameOf(chat: string): string
}) {
  return (
    <section className="open-chat" aria-labelledby="open-chat-title">
      <div className="open-chat-header">
        <Avatar instanceId={instanceId} chat={chat} name={name} group={isGroup} />
        <div>
          <h2 id="open-chat-title">{name}</h2>
          {name !== chatNumber(chat) && !isGroup ? <p className="hint">{chatNumber(chat)}</p> : null}
        </div>
      </div>
      <Thread
        instanceId={instanceId}
        chat={chat}
        isGroup={isGroup}
        nameOf={nameOf}
        markRead={markRead}
        unread={unread}
      />
      <SandboxContact instanceId={instanceId} chat={chat} />
    </section>
  )
}

/** In sandbox mode, the chat's contact as a sandbox phone: write, react, read and type as them. */
function SandboxContact({ instanceId, chat }: { instanceId: string; chat: string }) {
  const sandbox = useSandbox()
  if (!sandbox || !chat.endsWith('@s.whatsapp.net')) return null
  return <SandboxContactPanel instanceId={instanceId} phone={chat.split('@')[0]!} />
}

function SandboxContactPanel({ instanceId, phone }: { instanceId: string; phone: string }) {
  const [accounts, reload] = useSandboxAccounts()
  const [instances] = useInstances()
  useEffect(() => void reload(), [phone, reload])
  const contact =
    accounts.status === 'ready' ? accounts.data.find((account) => account.phone === phone) : undefined
  const own =
    instances.status === 'ready'
      ? instances.data.find((instance) => instance.instance_id === instanceId)?.account?.number
      : undefined
  if (!contact) return null
  return (
    <details className="sandbox-contact">
      <summary>Act as {contact.name || `+${contact.phone}`} (a sandbox phone)</summary>
      <ContactPanel contact={contact} suggestedTo={own ?? ''} />
    </details>
  )
}
