import { useState } from 'react'
import type { ChatList } from '../../api/types'
import { useApi } from '../../app/api-context'
import { ConfirmDialog } from '../../components/ConfirmDialog'
import { ErrorNotice } from '../../components/ErrorNotice'

type Chat = ChatList['chats'][number]

/** How long the window mutes a chat for: 8 hours, as the phone's first choice. */
const MUTE_SECONDS = 8 * 60 * 60

/** The disappearing-messages timer the window sets: 7 days, as the phone suggests. */
const DISAPPEARING_SECONDS = 7 * 24 * 60 * 60

/** A disappearing-messages timer in the apps' words. */
function timerName(seconds: number): string {
  const days = seconds / 86400
  return days === 1 ? '24 hours' : `${days} days`
}

/** The chat's flags in words (archived, pinned, muted, marked unread, disappearing), or nothing when none is set. */
export function ChatFlagBadges({ chat }: { chat: Chat }) {
  const shown = [
    chat.pinned && 'Pinned',
    chat.archived && 'Archived',
    chat.muted &&
      (chat.muted_until === null
        ? 'Muted'
        : `Muted until ${new Date(chat.muted_until * 1000).toLocaleString()}`),
    chat.marked_unread && 'Marked unread',
    chat.disappearing_timer > 0 && `Disappearing after ${timerName(chat.disappearing_timer)}`,
  ].filter((flag): flag is string => Boolean(flag))
  if (shown.length === 0) return null
  return <span className="chat-flags"> {shown.join(' · ')}</span>
}

/** Clearing and deleting a chat, as the confirmation words them. */
const REMOVALS = {
  clear_chat: {
    label: 'Clear chat',
    title: (name: string) => `Clear the chat with ${name}?`,
    consequence:
      'Its messages go from Linkdesk, the phone and the account’s other devices; the chat stays in their lists. The other side keeps its messages.',
  },
  delete_chat: {
    label: 'Delete chat',
    title: (name: string) => `Delete the chat with ${name}?`,
    consequence:
      'The chat and its messages go from Linkdesk, the phone and the account’s other devices, with its archive, pin and mute. The other side keeps its messages.',
  },
} as const

/**
 * Archive, pin, mute (8 hours), mark unread a chat and turn disappearing messages on (7 days), or undo each; clear
 * or delete it after a confirmation. The list refreshes from the chat.updated, chat.cleared or chat.deleted event
 * that follows. A refusal (such as a fourth pin) is shown beside the chat.
 */
export function ChatFlagActions({
  instanceId,
  chat,
  name,
}: {
  instanceId: string
  chat: Chat
  name: string
}) {
  const api = useApi()
  const [busy, setBusy] = useState(false)
  const [error, setError] = useState<unknown>(null)
  const [confirming, setConfirming] = useState<keyof typeof REMOVALS | null>(null)
  const run = (operation: string, params: Record<string, unknown> = {}) => {
    setBusy(true)
    setError(null)
    api
      .call(operation, { instance_id: instanceId, number: chat.chat, ...params })
      .catch((failure: unknown) => setError(failure))
      .finally(() => setBusy(false))
  }
  const actions: Array<[label: string, operation: string, params?: Record<string, unknown>]> = [
    chat.archived ? ['Unarchive', 'unarchive_chat'] : ['Archive', 'archive_chat'],
    chat.pinned ? ['Unpin', 'unpin_chat'] : ['Pin', 'pin_chat'],
    chat.muted ? ['Unmute', 'unmute_chat'] : ['Mute 8 h', 'mute_chat', { duration: MUTE_SECONDS }],
    chat.marked_unread ? ['Mark read', 'mark_chat_read'] : ['Mark unread', 'mark_chat_unread'],
    chat.disappearing_timer > 0
      ? ['Disappearing off', 'set_disappearing_timer', { timer: 0 }]
      : ['Disappearing 7 days', 'set_disappearing_timer', { timer: DISAPPEARING_SECONDS }],
  ]
  return (
    <span className="chat-actions" role="group" aria-label={`Organise ${name}`}>
      {actions.map(([label, operation, params]) => (
        <button key={operation} type="button" disabled={busy} onClick={() => run(operation, params)}>
          {label}
        </button>
      ))}
      {(Object.keys(REMOVALS) as Array<keyof typeof REMOVALS>).map((operation) => (
        <button key={operation} type="button" disabled={busy} onClick={() => setConfirming(operation)}>
          {REMOVALS[operation].label}
        </button>
      ))}
      {confirming ? (
        <ConfirmDialog
          title={REMOVALS[confirming].title(name)}
          confirmLabel={REMOVALS[confirming].label}
          onCancel={() => setConfirming(null)}
          onConfirm={() => {
            setConfirming(null)
            run(confirming)
          }}
        >
          <p>{REMOVALS[confirming].consequence}</p>
        </ConfirmDialog>
      ) : null}
      {error ? <ErrorNotice error={error} context={`Could not change ${name}`} /> : null}
    </span>
  )
}
