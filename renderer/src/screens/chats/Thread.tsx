import {
  type DragEvent,
  type KeyboardEvent,
  useCallback,
  useEffect,
  useLayoutEffect,
  useMemo,
  useRef,
  useState,
} from 'react'
import type { MessageView, SentMessage, UploadAnswer } from '../../api/types'
import { describeError } from '../../api/api-error'
import { useApi } from '../../app/api-context'
import { useFeedSnapshot, useLiveEvents } from '../../app/feed-context'
import { ErrorNotice } from '../../components/ErrorNotice'
import { laterTick, threadActs } from './thread-acts'
import { MessageBubble, Ticks } from './MessageBubble'
import { MessageToolbar } from './MessageToolbar'
import { type Outgoing, ThreadComposer } from './ThreadComposer'
import { useThread } from './use-thread'
import './Thread.css'

/** A message this window is sending: shown at once, then replaced by the stored one once its event comes. */
interface PendingSend {
  localId: string
  outgoing: Outgoing
  state: 'sending' | 'sent' | 'failed'
  error?: string
  /** The network's id once sent. */
  id?: string
}

/** How near the top (px) scrolling back loads the next older page. */
const LOAD_OLDER_WITHIN = 400

/** The send_message request of what the box handed over (a file is uploaded first). */
async function sendRequest(
  api: ReturnType<typeof useApi>,
  outgoing: Outgoing,
): Promise<Record<string, unknown>> {
  const reply = outgoing.replyTo ? { reply_to: outgoing.replyTo.id } : {}
  if (outgoing.kind === 'text') return { type: 'text', message: outgoing.text, ...reply }
  const upload = await api.request<UploadAnswer>('POST', 'uploads', { file: outgoing.file })
  if (outgoing.voice) return { type: 'voice', media_url: upload.url, ...reply }
  return {
    type: 'media',
    media_url: upload.url,
    ...(outgoing.caption && { message: outgoing.caption }),
    ...(!/^(image|video|audio)\//.test(outgoing.file.type) && { filename: outgoing.file.name }),
    ...reply,
  }
}

/**
 * One chat's thread: oldest to newest, top to bottom, opened at the newest message and paged back as the
 * person scrolls up; the message box under it; the chosen message's actions.
 */
export function Thread({
  instanceId,
  chat,
  isGroup,
  nameOf,
  markRead,
  unread,
}: {
  instanceId: string
  chat: string
  isGroup: boolean
  nameOf(chat: string): string
  /** Whether opening the chat (and each message arriving while it is open and seen) marks it read. */
  markRead: boolean
  unread: number
}) {
  const api = useApi()
  const { state, loadOlder } = useThread(instanceId, chat)
  const { events } = useFeedSnapshot()
  const acts = useMemo(() => threadActs(events, instanceId, chat), [events, instanceId, chat])
  const [pending, setPending] = useState<PendingSend[]>([])
  const [selected, setSelected] = useState<string | null>(null)
  const [replyTo, setReplyTo] = useState<MessageView | null>(null)
  const [dropped, setDropped] = useState<File | null>(null)
  const [readProblem, setReadProblem] = useState<unknown>(null)
  const scroller = useRef<HTMLOListElement>(null)
  const atBottom = useRef(true)
  const firstShown = useRef<{ id: string | undefined; height: number }>({ id: undefined, height: 0 })

  // Opening the chat marks it read, when the person chose so and it has unread messages.
  const readNow = useCallback(
    (params: Record<string, unknown>) =>
      api.call('mark_read', { instance_id: instanceId, ...params }).catch(setReadProblem),
    [api, instanceId],
  )
  useEffect(() => {
    if (markRead && unread > 0 && state.status === 'ready') void readNow({ number: chat })
  }, [markRead, unread, state.status, readNow, chat])
  useLiveEvents((event) => {
    if (event.instance_id !== instanceId || event.event !== 'message.received') return
    const data = event.data as Partial<MessageView>
    if (data.chat !== chat || data.from_me || typeof data.id !== 'string') return
    if (markRead && document.visibilityState === 'visible' && document.hasFocus())
      void readNow({ message_ids: [data.id] })
  })

  // The stored copy of a pending message has come (before or after the send answered): the pending one goes.
  const shownIds = useMemo(() => new Set(state.messages.map(({ id }) => id)), [state.messages])
  const stillPending = pending.filter(({ id }) => !id || !shownIds.has(id))
  useEffect(() => {
    setPending((now) =>
      now.some(({ id }) => id && shownIds.has(id)) ? now.filter(({ id }) => !id || !shownIds.has(id)) : now,
    )
  }, [shownIds, pending])

  // Opened at the newest message; an older page keeps what was in view where it was; a new message at the
  // bottom is followed when the person was at the bottom.
  useLayoutEffect(() => {
    const element = scroller.current
    if (!element) return
    const first = state.messages[0]?.id
    const before = firstShown.current
    if (before.id !== undefined && first !== before.id && before.height > 0) {
      element.scrollTop += element.scrollHeight - before.height
    } else if (atBottom.current) {
      element.scrollTop = element.scrollHeight
    }
    firstShown.current = { id: first, height: element.scrollHeight }
  }, [state.messages, pending])

  // A first page shorter than the view cannot be scrolled back: the next one is read by itself.
  useEffect(() => {
    const element = scroller.current
    if (element && state.status === 'ready' && state.older && element.scrollHeight <= element.clientHeight)
      void loadOlder()
  }, [state.status, state.older, state.messages, loadOlder])

  const onScroll = () => {
    const element = scroller.current
    if (!element) return
    atBottom.current = element.scrollHeight - element.scrollTop - element.clientHeight < 40
    if (element.scrollTop < LOAD_OLDER_WITHIN) void loadOlder()
  }

  const send = (outgoing: Outgoing, localId: string = crypto.randomUUID()) => {
    atBottom.current = true
    setReplyTo(null)
    setPending((now) => [
      ...now.filter((item) => item.localId !== localId),
      { localId, outgoing, state: 'sending' },
    ])
    const settle = (change: Partial<PendingSend>) =>
      setPending((now) => now.map((item) => (item.localId === localId ? { ...item, ...change } : item)))
    sendRequest(api, outgoing)
      .then((params) =>
        api.call<SentMessage>('send_message', { instance_id: instanceId, number: chat, ...params }),
      )
      .then(
        (answer) => settle({ state: 'sent', id: answer.message.key.id }),
        (error: unknown) => settle({ state: 'failed', error: describeError(error) }),
      )
  }

  // Arrows move through the messages; the chosen one shows its actions.
  const onKeyDown = (event: KeyboardEvent<HTMLOListElement>) => {
    const ids = state.messages.map(({ id }) => id)
    if (ids.length === 0) return
    const at = selected === null ? ids.length : ids.indexOf(selected)
    const moves: Record<string, number> = {
      ArrowUp: at - 1,
      ArrowDown: at + 1,
      Home: 0,
      End: ids.length - 1,
    }
    const next = moves[event.key]
    if (next === undefined) return
    event.preventDefault()
    const id = ids[Math.max(0, Math.min(ids.length - 1, next))]!
    setSelected(id)
    scroller.current?.querySelector<HTMLElement>(`[data-message-id="${CSS.escape(id)}"]`)?.scrollIntoView({
      block: 'nearest',
    })
  }
  const onDrop = (event: DragEvent) => {
    event.preventDefault()
    const file = event.dataTransfer.files[0]
    if (file) setDropped(file)
  }
  const chosen = state.messages.find(({ id }) => id === selected) ?? null
  const senderOf = (message: MessageView) =>
    isGroup && !message.from_me ? (message.push_name ?? nameOf(message.sender)) : null

  return (
    <div className="thread" onDragOver={(event) => event.preventDefault()} onDrop={onDrop}>
      {state.status === 'failed' ? (
        <ErrorNotice error={state.error} context="Could not read the chat" />
      ) : null}
      {readProblem ? <ErrorNotice error={readProblem} context="Not marked read" /> : null}
      <ol
        ref={scroller}
        className="thread-messages"
        aria-label={`Messages with ${nameOf(chat)}`}
        aria-busy={state.status === 'loading' || state.loadingOlder}
        tabIndex={0}
        onScroll={onScroll}
        onKeyDown={onKeyDown}
      >
        {state.status === 'ready' && state.older === null ? (
          <li className="thread-start">The first stored message of this chat</li>
        ) : null}
        {state.loadingOlder ? <li className="thread-start">Reading older messages…</li> : null}
        {state.status === 'loading' ? <li className="thread-start">Reading the chat…</li> : null}
        {state.messages.map((message) => (
          <MessageBubble
            key={message.id}
            message={message}
            sender={senderOf(message)}
            tick={
              message.from_me
                ? // A stored own message went out: sent at least, until a receipt says more.
                  (laterTick(state.ticks[message.id], acts.ticks.get(message.id)) ?? 'sent')
                : undefined
            }
            acts={acts}
            selected={message.id === selected}
            onSelect={setSelected}
          />
        ))}
        {stillPending.map((item) => (
          <li key={item.localId} className="thread-message own pending">
            <div className="bubble">
              <p className="thread-text">
                {item.outgoing.kind === 'text' ? item.outgoing.text : `[file] ${item.outgoing.file.name}`}
              </p>
              <p className="thread-meta">
                <Ticks
                  tick={
                    item.state === 'failed'
                      ? 'failed'
                      : item.state === 'sent'
                        ? (laterTick('sent', item.id ? acts.ticks.get(item.id) : undefined) ?? 'sent')
                        : 'pending'
                  }
                />
              </p>
              {item.state === 'failed' ? (
                <p className="thread-failed" role="alert">
                  Not sent: {item.error}{' '}
                  <button type="button" onClick={() => send(item.outgoing, item.localId)}>
                    Retry
                  </button>
                </p>
              ) : null}
            </div>
          </li>
        ))}
      </ol>
      {chosen ? (
        <MessageToolbar
          instanceId={instanceId}
          message={chosen}
          deleted={acts.deleted.has(chosen.id)}
          onReply={() => setReplyTo(chosen)}
          onClose={() => setSelected(null)}
        />
      ) : null}
      <ThreadComposer
        key={chat}
        instanceId={instanceId}
        chat={chat}
        replyTo={replyTo}
        onCancelReply={() => setReplyTo(null)}
        dropped={dropped}
        onSend={send}
      />
    </div>
  )
}
