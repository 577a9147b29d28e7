import { useCallback, useEffect, useRef, useState } from 'react'
import type { ChatMessagePage, MessageTickView, MessageView } from '../../api/types'
import { useApi } from '../../app/api-context'
import { useLiveEvents } from '../../app/feed-context'

/** Messages a page: enough to fill a tall window, small enough to answer at once. */
const THREAD_PAGE = 50

export interface ThreadState {
  status: 'loading' | 'ready' | 'failed'
  error: unknown
  /** Oldest first. */
  messages: MessageView[]
  /** The ticks of own messages as their pages gave them (later ones come by events). */
  ticks: Record<string, MessageTickView>
  /** The cursor of the next older page; null once the first message is loaded. */
  older: string | null
  loadingOlder: boolean
}

const LOADING: ThreadState = {
  status: 'loading',
  error: null,
  messages: [],
  ticks: {},
  older: null,
  loadingOlder: false,
}

/**
 * One chat's thread: its newest page first, older pages on demand (through chat_messages' cursor, never the
 * whole chat), and each new message of the chat as its event arrives.
 */
export function useThread(instanceId: string, chat: string) {
  const api = useApi()
  const [state, setState] = useState<ThreadState>(LOADING)
  const ticket = useRef(0)
  /** Messages that arrived while the first page was read: that read may have missed them. */
  const early = useRef<MessageView[] | null>([])
  const read = useCallback(
    (cursor?: string) =>
      api.call<ChatMessagePage>('chat_messages', {
        instance_id: instanceId,
        number: chat,
        limit: THREAD_PAGE,
        ...(cursor && { cursor }),
      }),
    [api, instanceId, chat],
  )

  useEffect(() => {
    const mine = ++ticket.current
    early.current = []
    setState(LOADING)
    read().then(
      (page) => {
        if (mine !== ticket.current) return
        const arrived = early.current ?? []
        early.current = null
        const messages = page.messages.slice().reverse()
        const known = new Set(messages.map(({ id }) => id))
        setState({
          ...LOADING,
          status: 'ready',
          messages: [...messages, ...arrived.filter(({ id }) => !known.has(id))],
          ticks: page.statuses,
          older: page.next_cursor,
        })
      },
      (error: unknown) => mine === ticket.current && setState({ ...LOADING, status: 'failed', error }),
    )
  }, [read])

  const loadOlder = useCallback(async () => {
    const cursor = state.older
    if (state.status !== 'ready' || cursor === null || state.loadingOlder) return
    const mine = ticket.current
    setState((now) => ({ ...now, loadingOlder: true }))
    try {
      const page = await read(cursor)
      if (mine !== ticket.current) return
      setState((now) => {
        const known = new Set(now.messages.map(({ id }) => id))
        const older = page.messages.filter(({ id }) => !known.has(id)).reverse()
        return {
          ...now,
          messages: [...older, ...now.messages],
          ticks: { ...page.statuses, ...now.ticks },
          older: page.next_cursor,
          loadingOlder: false,
        }
      })
    } catch (error) {
      if (mine === ticket.current) setState((now) => ({ ...now, loadingOlder: false, error }))
    }
  }, [read, state.older, state.status, state.loadingOlder])

  useLiveEvents((event) => {
    if (event.instance_id !== instanceId) return
    if (event.event !== 'message.received' && event.event !== 'message.sent') return
    const message = event.data as unknown as MessageView
    if (message.chat !== chat) return
    early.current?.push(message)
    setState((now) => {
      if (now.status !== 'ready' || now.messages.some(({ id }) => id === message.id)) return now
      return { ...now, messages: [...now.messages, message] }
    })
  })

  return { state, loadOlder }
}
