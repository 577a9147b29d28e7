import { useEffect, useId, useMemo, useState } from 'react'
import { useApi } from '../../app/api-context'
import { ErrorNotice } from '../../components/ErrorNotice'
import { VirtualList } from '../../components/VirtualList'
import { messageSummary } from '../events/message-summary'
import { Avatar } from './Avatar'
import { chatTime } from './chat-time'
import { type Chat, type ChatListState, chatNumber } from './use-chat-list'
import './ChatList.css'

const ROW_HEIGHT = 64

/** A chat's flags in words: pinned, archived, muted. */
function flagsOf(chat: Chat): string[] {
  return [chat.pinned && 'Pinned', chat.archived && 'Archived', chat.muted && 'Muted'].filter(
    (flag): flag is string => typeof flag === 'string',
  )
}

/** The chats whose messages hold the search's words, by the server (null while none is asked). */
function useTextMatches(instanceId: string, search: string): ReadonlySet<string> | null {
  const api = useApi()
  const [found, setFound] = useState<ReadonlySet<string> | null>(null)
  useEffect(() => {
    const words = search.trim()
    if (words.length < 2) {
      setFound(null)
      return
    }
    let current = true
    const timer = setTimeout(() => {
      api.call<{ chats: Chat[] }>('chats', { instance_id: instanceId, search: words }).then(
        ({ chats }) => current && setFound(new Set(chats.map(({ chat }) => chat))),
        () => current && setFound(new Set()),
      )
    }, 250)
    return () => {
      current = false
      clearTimeout(timer)
    }
  }, [api, instanceId, search])
  return found
}

/**
 * The chat list: picture, name, last message and its time, unread count and flags, newest first, filtered
 * by name, number or a word of a message; only the rows in view are rendered.
 */
export function ChatList({
  instanceId,
  list,
  nameOf,
  openChat,
  onOpen,
}: {
  instanceId: string
  list: ChatListState
  nameOf(chat: string): string
  openChat: string | null
  onOpen(chat: string): void
}) {
  const searchId = useId()
  const [search, setSearch] = useState('')
  const textMatches = useTextMatches(instanceId, search)
  const shown = useMemo(() => {
    if (list.status !== 'ready') return []
    const words = search.trim().toLowerCase()
    if (words === '') return list.chats
    const digits = words.replace(/[^\d]/g, '')
    return list.chats.filter(
      ({ chat }) =>
        nameOf(chat).toLowerCase().includes(words) ||
        (digits !== '' && chat.split('@')[0]!.includes(digits)) ||
        textMatches?.has(chat) === true,
    )
  }, [list, search, nameOf, textMatches])
  const selected = shown.findIndex(({ chat }) => chat === openChat)

  return (
    <section className="chat-list" aria-label="Chat list">
      <div className="field">
        <label htmlFor={searchId}>Search chats</label>
        <input
          id={searchId}
          type="search"
          value={search}
          placeholder="Name, number or a word of a message"
          onChange={(event) => setSearch(event.target.value)}
        />
      </div>
      {list.status === 'failed' ? (
        <ErrorNotice error={list.error} context="Could not read the chats" />
      ) : null}
      {list.status === 'loading' ? <p role="status">Reading the chats…</p> : null}
      {list.status === 'ready' && list.chats.length === 0 ? (
        <p className="hint">No chats yet: a chat appears when a message arrives or is sent.</p>
      ) : null}
      {list.status === 'ready' && list.chats.length > 0 && shown.length === 0 ? (
        <p className="hint" role="status">
          No chat matches “{search.trim()}”.
        </p>
      ) : null}
      <VirtualList
        label="Chats"
        count={shown.length}
        rowHeight={ROW_HEIGHT}
        rowId={(index) => `chat-row-${index}`}
        selected={selected === -1 ? null : selected}
        onSelect={(index) => {
          const chat = shown[index]
          if (chat) onOpen(chat.chat)
        }}
        renderRow={(index) => {
          const chat = shown[index]!
          const name = nameOf(chat.chat)
          const flags = flagsOf(chat)
          return (
            <div className="chat-row">
              <Avatar instanceId={instanceId} chat={chat.chat} name={name} group={chat.is_group} />
              <div className="chat-row-text">
                <div className="chat-row-top">
                  <span className="chat-name">{name}</span>
                  <span className="chat-time">{chatTime(chat.last_message.timestamp)}</span>
                </div>
                <div className="chat-row-bottom">
                  <span className="chat-preview">
                    {chat.last_message.from_me ? 'You: ' : ''}
                    {messageSummary(chat.last_message as unknown as Record<string, unknown>)}
                  </span>
                  {flags.length > 0 ? <span className="chat-flags">{flags.join(' · ')}</span> : null}
                  {chat.unread > 0 ? (
                    <span className="chat-unread">
                      {chat.unread}
                      <span className="visually-hidden"> unread</span>
                    </span>
                  ) : null}
                </div>
                {name !== chatNumber(chat.chat) && !chat.is_group ? (
                  <span className="visually-hidden">{chatNumber(chat.chat)}</span>
                ) : null}
              </div>
            </div>
          )
        }}
      />
    </section>
  )
}
