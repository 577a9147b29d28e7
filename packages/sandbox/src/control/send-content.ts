import { proto } from '@whiskeysockets/baileys'
import { SandboxError } from '../errors'
import { EDIT_WINDOW_SECONDS, REVOKE_WINDOW_SECONDS } from '../protocol/action-limits'
import type { Account } from '../accounts/account'
import {
  contactsContent,
  locationContent,
  mediaContent,
  textContent,
  type MessageContext,
  type OutgoingContent,
} from '../messages/outgoing-content'
import type { SandboxNetwork } from '../network'
import { unixNow } from '../stanzas/binary-node'
import type { SandboxSendInput } from './control-types'
import { assertPhone } from './phone-number'

const TEXT_LIMIT = 65_536
/** A day: far above any voice or video note, and well inside the message's 32-bit field. */
const MAX_SECONDS = 86_400

function assertCoordinate(field: string, value: unknown, limit: number): number {
  if (typeof value !== 'number' || !Number.isFinite(value) || Math.abs(value) > limit) {
    throw new SandboxError('invalid_parameter', `${field} must be a number from -${limit} to ${limit}.`)
  }
  return value
}

/** The quote of an earlier message the account received or sent itself, as its phone would show it. */
function quoteOf(network: SandboxNetwork, sender: Account, id: string): MessageContext['quoted'] {
  const received = sender.inbox.get(id)
  if (received) {
    const text = received.type === 'text' ? received.text : null
    return {
      id,
      participant: `${received.from}@s.whatsapp.net`,
      message: text === null ? undefined : { conversation: text },
    }
  }
  const sent = network.recentSends.get(id)
  if (sent?.sender === sender) return { id, participant: sender.pnJid, message: sent.content.message }
  throw new SandboxError('quoted_not_found', `reply_to: ${sender.phone} has no message ${id}.`)
}

function contextOf(network: SandboxNetwork, sender: Account, input: SandboxSendInput): MessageContext {
  const mentions = (input.mentions ?? []).map((phone) => `${assertPhone(phone, 'mentions')}@s.whatsapp.net`)
  const quoted = input.replyTo === undefined ? undefined : quoteOf(network, sender, input.replyTo)
  return { quoted, mentions }
}

function checkMedia(input: SandboxSendInput): void {
  const media = input.media
  if (!media) return
  if (
    media.seconds !== undefined &&
    (!Number.isInteger(media.seconds) || media.seconds < 0 || media.seconds > MAX_SECONDS)
  ) {
    throw new SandboxError('invalid_parameter', `seconds must be a whole number from 0 to ${MAX_SECONDS}.`)
  }
  const kind = media.as ?? media.mimetype.split('/')[0]
  if (media.viewOnce && kind !== 'image' && kind !== 'video') {
    throw new SandboxError('invalid_parameter', 'view_once applies to an image or a video.')
  }
}

/**
 * The message a simulated phone sends for a control request, checked first: exactly one of media,
 * location or contacts (a text beside media stays ignored, as it always was), else a text.
 */
export function contentOf(
  network: SandboxNetwork,
  sender: Account,
  input: SandboxSendInput,
): OutgoingContent {
  const action = actionContent(network, sender, input)
  if (action) return action
  const kinds = [input.media, input.location, input.contacts].filter((part) => part !== undefined)
  if (kinds.length > 1 || (kinds.length === 1 && !input.media && input.text !== undefined)) {
    throw new SandboxError('invalid_parameter', 'Send one of text, media, location or contacts.')
  }
  if (input.text === undefined && kinds.length === 0)
    throw new SandboxError('missing_parameter', 'text, media, location or contacts is required.')
  if (input.text !== undefined && input.text.length > TEXT_LIMIT) {
    throw new SandboxError('payload_too_large', `text is longer than ${TEXT_LIMIT} characters.`)
  }
  if (input.linkPreview && (input.text === undefined || kinds.length > 0)) {
    throw new SandboxError('invalid_parameter', 'link_preview goes with a text.')
  }
  checkMedia(input)
  const context = contextOf(network, sender, input)
  if (input.media) return mediaContent(network.media, input.media, context)
  if (input.location) {
    const { latitude, longitude, name, address } = input.location
    return locationContent(
      {
        latitude: assertCoordinate('location.latitude', latitude, 90),
        longitude: assertCoordinate('location.longitude', longitude, 180),
        name,
        address,
      },
      context,
    )
  }
  if (input.contacts) {
    if (input.contacts.length === 0)
      throw new SandboxError('invalid_parameter', 'contacts must list at least one card.')
    for (const contact of input.contacts) {
      if (!contact.name) throw new SandboxError('invalid_parameter', 'contacts: every card needs a name.')
      assertPhone(contact.phone, 'contacts[].phone')
    }
    return contactsContent(input.contacts, context)
  }
  return textContent(input.text ?? '', context, input.linkPreview)
}

/** The key of an earlier message as the account addresses it: one it received, or one it sent. */
function keyOf(
  network: SandboxNetwork,
  account: Account,
  id: string,
): proto.IMessageKey & { sentAt: number } {
  const received = account.inbox.get(id)
  if (received) {
    const group = received.chat.endsWith('@g.us')
    return {
      id,
      remoteJid: group ? received.chat : `${received.from}@s.whatsapp.net`,
      fromMe: false,
      participant: group ? `${received.from}@s.whatsapp.net` : undefined,
      sentAt: received.timestamp,
    }
  }
  const sent = network.recentSends.get(id)
  if (sent?.sender === account) {
    const remoteJid = sent.group?.jid ?? sent.recipient?.pnJid ?? ''
    return { id, remoteJid, fromMe: true, sentAt: sent.timestamp }
  }
  throw new SandboxError('message_not_found', `${account.phone} has no message ${id}.`)
}

/** An edit or a delete is the sender's own, within the network's window. */
function ownWithin(key: { fromMe?: boolean | null; sentAt: number }, window: number, what: string): void {
  if (!key.fromMe) throw new SandboxError('action_not_allowed', `Only its sender can ${what} a message.`)
  if (unixNow() - key.sentAt > window) {
    throw new SandboxError('action_not_allowed', `The message is too old to ${what}.`)
  }
}

/** A reaction, an edit or a delete for everyone, when the request is one (they go alone). */
function actionContent(
  network: SandboxNetwork,
  sender: Account,
  input: SandboxSendInput,
): OutgoingContent | undefined {
  const actions = [input.reaction, input.edit, input.revoke, input.vote].filter((part) => part !== undefined)
  if (actions.length === 0) return undefined
  const others = [input.text, input.media, input.location, input.contacts, input.replyTo]
  if (actions.length > 1 || others.some((part) => part !== undefined)) {
    throw new SandboxError('invalid_parameter', 'A reaction, an edit or a revoke goes alone.')
  }
  if (input.vote?.unknownPoll) return unreadableVoteContent(network, sender, input.vote, input.to)
  if (input.vote) return voteContent(network, sender, input.vote)
  if (input.reaction) {
    const { sentAt: _sentAt, ...key } = keyOf(network, sender, input.reaction.id)
    const reactionMessage = { key, text: input.reaction.emoji, senderTimestampMs: Date.now() }
    return { message: { reactionMessage }, stanzaType: 'reaction' }
  }
  if (input.edit) {
    if (!input.edit.text) throw new SandboxError('missing_parameter', 'edit.text is required.')
    const { sentAt, ...key } = keyOf(network, sender, input.edit.id)
    ownWithin({ ...key, sentAt }, EDIT_WINDOW_SECONDS, 'edit')
    const protocolMessage = {
      key,
      type: proto.Message.ProtocolMessage.Type.MESSAGE_EDIT,
      editedMessage: { conversation: input.edit.text },
      timestampMs: Date.now(),
    }
    return { message: { protocolMessage }, stanzaType: 'text' }
  }
  const { sentAt, ...key } = keyOf(network, sender, input.revoke?.id ?? '')
  ownWithin({ ...key, sentAt }, REVOKE_WINDOW_SECONDS, 'delete for everyone')
  const protocolMessage = { key, type: proto.Message.ProtocolMessage.Type.REVOKE }
  return { message: { protocolMessage }, stanzaType: 'text' }
}

/**
 * A vote on a poll the account never received, taken as created by the recipient (`to`): encrypted under a
 * random secret, so that no client can read it, as a client that never stored the poll cannot.
 */
function unreadableVoteContent(
  network: SandboxNetwork,
  sender: Account,
  vote: { id: string; options: string[] },
  to: string,
): OutgoingContent {
  if (sender.inbox.get(vote.id) || network.recentSends.get(vote.id)) {
    throw new SandboxError(
      'invalid_parameter',
      `vote.unknown_poll: ${sender.phone} knows message ${vote.id}.`,
    )
  }
  const remoteJid = to.includes('@') ? to : `${to}@s.whatsapp.net`
  const pollUpdateMessage = {
    pollCreationMessageKey: { id: vote.id, remoteJid, fromMe: false },
    vote: network.pollSecrets.encryptUnreadableVote(vote.id, sender.pnJid, vote.options),
    senderTimestampMs: Date.now(),
  }
  return { message: { pollUpdateMessage }, stanzaType: 'text' }
}

/** A vote on a poll the account received: its option names checked, encrypted as a client does. */
function voteContent(
  network: SandboxNetwork,
  sender: Account,
  vote: { id: string; options: string[] },
): OutgoingContent {
  const poll = sender.inbox.get(vote.id)
  if (!poll?.poll) throw new SandboxError('message_not_found', `${sender.phone} received no poll ${vote.id}.`)
  const unknown = vote.options.filter((option) => !poll.poll?.options.includes(option))
  if (unknown.length > 0) {
    throw new SandboxError(
      'invalid_parameter',
      `vote.options: ${unknown.join(', ')} is not an option of the poll.`,
    )
  }
  if (poll.poll.selectable === 1 && vote.options.length > 1) {
    throw new SandboxError('invalid_parameter', 'vote.options: this poll takes one option.')
  }
  const encrypted = network.pollSecrets.encryptVote(vote.id, sender.pnJid, vote.options)
  if (!encrypted) throw new SandboxError('message_not_found', `The secret of poll ${vote.id} is not kept.`)
  const { sentAt: _sentAt, ...key } = keyOf(network, sender, vote.id)
  const pollUpdateMessage = {
    pollCreationMessageKey: key,
    vote: encrypted,
    senderTimestampMs: Date.now(),
  }
  return { message: { pollUpdateMessage }, stanzaType: 'text' }
}
