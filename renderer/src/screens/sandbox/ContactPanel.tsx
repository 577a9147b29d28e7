import type { SandboxAccountView, SandboxInbox, SandboxInboxEntryView } from '../../api/types'
import { useLiveEvents } from '../../app/feed-context'
import { useOperation } from '../../app/use-operation'
import { ErrorNotice } from '../../components/ErrorNotice'
import { ContactActions } from './ContactActions'
import { ContactChannels } from './ContactChannels'
import { ContactSendForm } from './ContactSendForm'
import { LinkedDeviceFaults } from './LinkedDeviceFaults'
import { PairingCodeEntry } from './PairingCodeEntry'
import { PhoneBehaviourForm } from './PhoneBehaviourForm'
import './ContactPanel.css'

/** One contact: send a message as it, read what it received, and (a linked phone) fault its devices. */
export function ContactPanel({ contact, suggestedTo }: { contact: SandboxAccountView; suggestedTo: string }) {
  const path = `sandbox/accounts/${encodeURIComponent(contact.phone)}/messages`
  const [received, reload] = useOperation(
    async (client) => (await client.request<SandboxInbox>('GET', path)).messages,
    path,
  )
  const inbox = received.status === 'ready' ? received.data : []
  // What an instance sends shows up in the contact's inbox; its message.sent event is the cue to look.
  useLiveEvents((event) => {
    if (event.event === 'message.sent' || event.event === 'message.status') void reload()
  })

  const label = contact.name ? `${contact.name} (+${contact.phone})` : `+${contact.phone}`
  return (
    <section className="contact-panel stack" aria-labelledby="contact-title">
      <h2 id="contact-title">{label}</h2>
      <ContactSendForm phone={contact.phone} label={label} suggestedTo={suggestedTo} />
      <ContactActions phone={contact.phone} suggestedTo={suggestedTo} inbox={inbox} />
      <PairingCodeEntry phone={contact.phone} />
      {contact.linkedDevices.length > 0 ? <LinkedDeviceFaults phone={contact.phone} /> : null}
      <PhoneBehaviourForm phone={contact.phone} />
      <ContactChannels phone={contact.phone} />
      {received.status === 'failed' ? <ErrorNotice error={received.error} context="Sandbox" /> : null}
      <div className="screen-header">
        <h3>Inbox ({inbox.length})</h3>
        <button type="button" onClick={() => void reload()}>
          Refresh
        </button>
      </div>
      {inbox.length === 0 ? (
        <p className="hint">Nothing received yet: send this number a message from the Composer.</p>
      ) : (
        <ol className="inbox" aria-label={`Inbox of ${label}`}>
          {inbox.map((message) => (
            <li key={message.id}>
              <span className="muted">
                {new Date(message.timestamp * 1000).toLocaleTimeString()} from +{message.from}
                {message.chat.endsWith('@g.us') ? ` in ${message.chat}` : ''}
              </span>{' '}
              {describeMessage(message)}
            </li>
          ))}
        </ol>
      )}
    </section>
  )
}

/** What a message is, as a person would name it: a voice note rather than PTT audio. */
function kindOf(message: SandboxInboxEntryView): string {
  if (message.ptt) return 'voice note'
  if (message.videoNote) return 'video note'
  return message.viewOnce ? `view-once ${message.type}` : message.type
}

function contentOf(message: SandboxInboxEntryView): string {
  if (message.type === 'reaction')
    return `[reaction ${message.text || '(taken back)'} to ${message.targetId}]`
  if (message.type === 'edit') return `[edit of ${message.targetId}] ${message.text ?? ''}`
  if (message.type === 'revoke') return `[${message.targetId} deleted for everyone]`
  if (message.type === 'text') {
    const preview = message.linkPreview
      ? ` [preview: ${message.linkPreview.title ?? message.linkPreview.url}]`
      : ''
    return `${message.text ?? ''}${preview}`
  }
  if (message.location) {
    const { latitude, longitude, name } = message.location
    return `[location ${latitude}, ${longitude}${name ? ` ${name}` : ''}]`
  }
  if (message.contacts) {
    const cards = message.contacts.map((card) => `${card.name} ${card.phones.join(', ')}`).join('; ')
    return `[contact: ${cards}]`
  }
  const name = message.filename ? ` ${message.filename}` : ''
  const seconds = message.seconds === null ? '' : ` ${message.seconds} s`
  const size = message.size === null ? '' : ` (${message.size} bytes)`
  const caption = message.caption ? `: ${message.caption}` : ''
  return `[${kindOf(message)}${name}${seconds}${size}]${caption}`
}

function describeMessage(message: SandboxInboxEntryView): string {
  const quote = message.quotedId ? `↩ ${message.quotedId} ` : ''
  const mentions = message.mentions.length ? ` (mentions ${message.mentions.join(', ')})` : ''
  return `${quote}${contentOf(message)}${mentions}`
}
