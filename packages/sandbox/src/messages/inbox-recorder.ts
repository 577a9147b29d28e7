import type { proto } from '@whiskeysockets/baileys'
import type { Account } from '../accounts/account'
import { decryptMedia, sha256 } from '../media/media-crypto'
import { EDIT_WINDOW_SECONDS, REVOKE_WINDOW_SECONDS } from '../protocol/action-limits'
import type { SandboxNetwork } from '../network'
import { describeMessage, type DescribedMessage, type SandboxInboxEntry } from './inbox'

export interface ReceivedMessage {
  id: string
  from: Account
  /** The sender's phone number for 1:1, the group JID for groups. */
  chat: string
  timestamp: number
  message: proto.IMessage
}

function mediaFacts(
  network: SandboxNetwork,
  media: DescribedMessage['media'],
): Pick<SandboxInboxEntry, 'mimetype' | 'size' | 'sha256'> {
  if (!media) return { mimetype: null, size: null, sha256: null }
  const { fields, kind } = media
  const mimetype = fields.mimetype ?? null
  const file = network.media.get(fields.directPath ?? fields.url)
  if (file && fields.mediaKey) {
    try {
      const plain = decryptMedia(file, fields.mediaKey, kind)
      return { mimetype, size: plain.length, sha256: sha256(plain).toString('hex') }
    } catch (error) {
      network.log.warn({ err: error }, 'received media does not decrypt')
    }
  }
  const size = fields.fileLength == null ? null : Number(fields.fileLength)
  return { mimetype, size, sha256: fields.fileSha256 ? Buffer.from(fields.fileSha256).toString('hex') : null }
}

/** The phone keeps the file of a message it received, to upload it again when asked (media retry). */
function keepPhoneCopy(
  network: SandboxNetwork,
  phone: string,
  messageId: string,
  message: proto.IMessage,
): void {
  const fields = describeMessage(message)?.media?.fields
  const file = fields && network.media.get(fields.directPath ?? fields.url)
  if (file && fields.mediaKey)
    network.phoneMedia.keep(phone, messageId, { file, mediaKey: Buffer.from(fields.mediaKey) })
}

/**
 * An edit or a delete for everyone past the network's window for its message: WhatsApp drops it, so the
 * recipient never sees it.
 */
function tooLate(
  network: SandboxNetwork,
  recipient: Account,
  described: DescribedMessage,
  now: number,
): boolean {
  const window =
    described.type === 'edit'
      ? EDIT_WINDOW_SECONDS
      : described.type === 'revoke'
        ? REVOKE_WINDOW_SECONDS
        : undefined
  const target = described.targetId ? recipient.inbox.get(described.targetId) : undefined
  if (window === undefined || !target || now - target.timestamp <= window) return false
  network.log.warn({ type: described.type, target: target.id }, 'a late edit or delete is dropped')
  return true
}

/**
 * Puts a message into the recipient's inbox and announces it. Returns undefined for protocol-only
 * messages and for an id the account already has (retries resend to every device).
 */
export function recordInbox(
  network: SandboxNetwork,
  recipient: Account,
  received: ReceivedMessage,
): SandboxInboxEntry | undefined {
  const described = describeMessage(received.message)
  if (!described || recipient.hasReceived(received.id)) return undefined
  if (tooLate(network, recipient, described, received.timestamp)) return undefined
  const { media, ...shown } = described
  const entry: SandboxInboxEntry = {
    id: received.id,
    from: received.from.phone,
    chat: received.chat,
    ...shown,
    ...mediaFacts(network, media),
    timestamp: received.timestamp,
  }
  recipient.record(entry)
  if (media) keepPhoneCopy(network, recipient.phone, received.id, received.message)
  const secret = received.message.messageContextInfo?.messageSecret
  if (entry.type === 'poll' && secret) network.pollSecrets.keep(entry.id, secret, received.from.pnJid)
  network.events.emit('message', { phone: recipient.phone, entry })
  return entry
}
