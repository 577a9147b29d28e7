import { memo } from 'react'
import type { MessageTickView, MessageView } from '../../api/types'
import { messageTime } from './chat-time'
import { MediaView } from './MediaView'
import type { ThreadActs } from './thread-acts'

/** A tick as the apps draw it, and in words. */
const TICKS: Record<MessageTickView | 'pending', { mark: string; words: string }> = {
  pending: { mark: '🕓', words: 'Sending' },
  sent: { mark: '✓', words: 'Sent' },
  delivered: { mark: '✓✓', words: 'Delivered' },
  read: { mark: '✓✓', words: 'Read' },
  played: { mark: '✓✓', words: 'Played' },
  failed: { mark: '!', words: 'Not sent' },
}

export function Ticks({ tick }: { tick: MessageTickView | 'pending' }) {
  const { mark, words } = TICKS[tick]
  return (
    <span className={`ticks ticks-${tick}`} title={words}>
      <span aria-hidden="true">{mark}</span>
      <span className="visually-hidden">{words}</span>
    </span>
  )
}

/** What a message holds, shown as itself. */
function Content({
  message,
  tally,
}: {
  message: MessageView
  tally?: Array<{ option: string; votes: number }>
}) {
  if (message.media) {
    return (
      <>
        <MediaView message={message} />
        {message.caption ? <p className="thread-text">{message.caption}</p> : null}
      </>
    )
  }
  switch (message.type) {
    case 'location': {
      const place = message.location
      if (!place) break
      const at = `${place.latitude}, ${place.longitude}`
      return (
        <p className="thread-kind">
          📍 {place.name ?? 'Location'} {place.address ? `— ${place.address}` : ''}{' '}
          <a
            href={`https://www.openstreetmap.org/?mlat=${place.latitude}&mlon=${place.longitude}`}
            target="_blank"
            rel="noreferrer"
          >
            {at}
          </a>
        </p>
      )
    }
    case 'contact':
      return (
        <ul className="thread-cards" aria-label="Contact cards">
          {(message.contacts ?? []).map((card, index) => (
            <li key={index}>
              👤 {card.name} {card.phones.map((phone) => `+${phone}`).join(', ')}
            </li>
          ))}
        </ul>
      )
    case 'poll':
      return (
        <div className="thread-poll">
          <p className="thread-text">📊 {message.text ?? 'Poll'}</p>
          {tally ? (
            <ul aria-label="Votes">
              {tally.map(({ option, votes }) => (
                <li key={option}>
                  {option}: {votes} {votes === 1 ? 'vote' : 'votes'}
                </li>
              ))}
            </ul>
          ) : (
            <p className="hint">No votes yet.</p>
          )}
        </div>
      )
    case 'group_invite':
      return <p className="thread-kind">Invitation to join {message.group_invite?.subject ?? 'a group'}</p>
    case 'text':
      return (
        <>
          <p className="thread-text">{message.text}</p>
          {message.link_preview ? (
            <a className="thread-preview" href={message.link_preview.url} target="_blank" rel="noreferrer">
              <strong>{message.link_preview.title ?? message.link_preview.url}</strong>
              {message.link_preview.description ? <span>{message.link_preview.description}</span> : null}
            </a>
          ) : null}
        </>
      )
    default:
      break
  }
  return (
    <p className="thread-kind">
      [{message.type}] {message.text ?? ''}
    </p>
  )
}

export interface BubbleProps {
  message: MessageView
  /** The sender's name, shown on a group's messages from others. */
  sender: string | null
  tick: MessageTickView | 'pending' | undefined
  acts: ThreadActs
  selected: boolean
  onSelect(id: string): void
}

/** One message of a thread: own ones apart from the contact's, with what later events did to it. */
export const MessageBubble = memo(function MessageBubble({
  message,
  sender,
  tick,
  acts,
  selected,
  onSelect,
}: BubbleProps) {
  const deleted = acts.deleted.has(message.id)
  const edited = acts.edits.get(message.id)
  const reactions = [...(acts.reactions.get(message.id)?.values() ?? [])]
  const shown = edited === undefined ? message : { ...message, text: edited }
  return (
    <li
      className={`thread-message ${message.from_me ? 'own' : 'theirs'}${selected ? ' selected' : ''}`}
      data-message-id={message.id}
      tabIndex={-1}
      aria-label={`${message.from_me ? 'You' : (sender ?? 'Them')}, ${messageTime(message.timestamp)}`}
      onClick={() => onSelect(message.id)}
    >
      <div className="bubble">
        {sender ? <p className="thread-sender">{sender}</p> : null}
        {message.quoted ? (
          <blockquote className="thread-quote">
            <span className="visually-hidden">Replying to: </span>
            {message.quoted.text ?? `[${message.quoted.type}]`}
          </blockquote>
        ) : null}
        {deleted ? (
          <p className="thread-kind">🚫 This message was deleted</p>
        ) : (
          <Content message={shown} tally={acts.tallies.get(message.id)} />
        )}
        <p className="thread-meta">
          {edited !== undefined && !deleted ? <span>Edited · </span> : null}
          <time dateTime={new Date(Number(message.timestamp) * 1000).toISOString()}>
            {messageTime(message.timestamp)}
          </time>
          {message.from_me && tick ? <Ticks tick={tick} /> : null}
        </p>
        {reactions.length > 0 ? (
          <p className="thread-reactions" aria-label={`Reactions: ${reactions.join(' ')}`}>
            {reactions.join(' ')}
          </p>
        ) : null}
      </div>
    </li>
  )
})
