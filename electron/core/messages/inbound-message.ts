import type { WaInboundMessage, WaStatus } from '../wa/wa-types'
import type { DeliveryStatus, LinkdeskMessage, MessageType } from './message-types'

const PHONE_SUFFIX = '@s.whatsapp.net'
const LID_SUFFIX = '@lid'

/** `<digits>:<device>@s.whatsapp.net` → `<digits>@s.whatsapp.net`; other ids unchanged. */
function bareJid(jid: string): string {
  const at = jid.indexOf('@')
  if (at < 0) return jid
  return `${jid.slice(0, at).replace(/:\d+$/, '')}${jid.slice(at)}`
}

/** The phone-number form and the LID form among two addresses of one person, where given. */
function addresses(primary: string, alternate: string | null): { phone: string | null; lid: string | null } {
  const all = [primary, alternate].filter((jid): jid is string => Boolean(jid)).map(bareJid)
  return {
    phone: all.find((jid) => jid.endsWith(PHONE_SUFFIX)) ?? null,
    lid: all.find((jid) => jid.endsWith(LID_SUFFIX)) ?? null,
  }
}

const OTHER_TYPES: Record<string, MessageType> = {
  locationMessage: 'location',
  liveLocationMessage: 'location',
  contactMessage: 'contact',
  contactsArrayMessage: 'contact',
  reactionMessage: 'reaction',
  pollCreationMessage: 'poll',
  pollCreationMessageV2: 'poll',
  pollCreationMessageV3: 'poll',
}

function typeOf(message: WaInboundMessage): MessageType {
  if (message.type !== 'other') return message.type
  return (message.contentName && OTHER_TYPES[message.contentName]) || 'unknown'
}

/**
 * A message from the network as Linkdesk shows it: the chat and the sender by phone number where known
 * (with the LID beside it), the text or caption, media facts with a download URL, the quoted message.
 */
export function toLinkdeskMessage(
  message: WaInboundMessage,
  ownAccount: { number: string; lid: string | null } | undefined,
  downloadUrl: (messageId: string) => string,
): LinkdeskMessage {
  const { key } = message
  const chat = addresses(key.chat, key.chatAlt)
  const isGroup = key.chat.endsWith('@g.us')
  let sender: { phone: string | null; lid: string | null }
  if (key.fromMe) {
    sender = {
      phone: ownAccount ? `${ownAccount.number}${PHONE_SUFFIX}` : null,
      lid: ownAccount?.lid ? bareJid(ownAccount.lid) : null,
    }
  } else if (isGroup) {
    sender = key.participant ? addresses(key.participant, key.participantAlt) : { phone: null, lid: null }
  } else {
    sender = chat
  }
  const media = message.media
  return {
    id: key.id,
    chat: isGroup ? key.chat : (chat.phone ?? chat.lid ?? key.chat),
    is_group: isGroup,
    from_me: key.fromMe,
    sender: sender.phone ?? sender.lid ?? (key.participant ? bareJid(key.participant) : bareJid(key.chat)),
    sender_phone: sender.phone ? sender.phone.slice(0, -PHONE_SUFFIX.length) : null,
    sender_lid: sender.lid,
    push_name: message.pushName,
    type: typeOf(message),
    text: message.text,
    caption: message.caption,
    media: media
      ? {
          mimetype: media.mimetype,
          size: media.size,
          filename: media.fileName,
          sha256: media.sha256,
          seconds: media.seconds,
          voice_note: media.ptt,
          download_url: downloadUrl(key.id),
        }
      : null,
    quoted: message.quoted
      ? {
          id: message.quoted.id,
          sender: message.quoted.participant ? bareJid(message.quoted.participant) : null,
          type: message.quoted.type === 'other' ? 'unknown' : message.quoted.type,
          text: message.quoted.text,
        }
      : null,
    timestamp: message.timestamp,
  }
}

/** The network's status names as Linkdesk's; `pending` (not yet acknowledged) is not an event. */
export function deliveryStatusOf(status: WaStatus): DeliveryStatus | undefined {
  return status === 'pending' ? undefined : status
}
