import { normalizeMessageContent, proto } from '@whiskeysockets/baileys'
import { parseContactCard } from '../protocol/contact-card'

export type InboxEntryType =
  | 'text'
  | 'image'
  | 'video'
  | 'audio'
  | 'document'
  | 'sticker'
  | 'reaction'
  | 'edit'
  | 'revoke'
  | 'poll'
  | 'location'
  | 'contact'
  | 'group_invite'
  | 'disappearing'
  | 'unknown'

export interface SandboxLocation {
  latitude: number
  longitude: number
  name: string | null
  address: string | null
}

/** A contact card: its vCard as sent, and the name and numbers read from it. */
export interface SandboxContactCard {
  name: string
  /** Digits with country code. */
  phones: string[]
  vcard: string
}

export interface SandboxLinkPreview {
  url: string
  title: string | null
  description: string | null
  /** The small JPEG shown beside the title, base64; null when the sender attached none. */
  thumbnail: string | null
}

/** A message as the receiving simulated account read it. Absent fields are null (lists: empty, flags: false). */
export interface SandboxInboxEntry {
  id: string
  /** The sender's phone number. */
  from: string
  /** The sender's phone number for a 1:1 message, the group JID (`<id>@g.us`) for a group message. */
  chat: string
  type: InboxEntryType
  text: string | null
  caption: string | null
  filename: string | null
  mimetype: string | null
  size: number | null
  /** Hex SHA-256 of the decrypted media content. */
  sha256: string | null
  /** Audio sent as a voice note (push-to-talk). */
  ptt: boolean
  /** A round video note. */
  videoNote: boolean
  /** Media that may be opened once. */
  viewOnce: boolean
  /** Playing time of audio or video, as the message states it. */
  seconds: number | null
  /** A voice note's waveform as the apps draw it (values 0-100). */
  waveform: number[] | null
  location: SandboxLocation | null
  /** One card or several (type `contact`). */
  contacts: SandboxContactCard[] | null
  /** The id of the message this one quotes (a reply). */
  quotedId: string | null
  /** The message a reaction, an edit or a delete for everyone acts on. */
  targetId: string | null
  /** A poll: its question, options and how many a voter may pick (1, or 0 for any number). */
  poll: { question: string; options: string[]; selectable: number } | null
  /** JIDs the message mentions. */
  mentions: string[]
  linkPreview: SandboxLinkPreview | null
  /** An invitation to join a group: the group, its subject and the code that joins it. */
  groupInvite: { groupId: string; subject: string; code: string; expiration: number } | null
  /**
   * Seconds the message lasts in a chat with disappearing messages on (its contextInfo.expiration); for a
   * `disappearing` entry (the sender changed the chat's timer), the new timer, 0 when turned off.
   */
  expiration: number | null
  /** Unix seconds. */
  timestamp: number
}

export type InboxEntry = SandboxInboxEntry

export interface MediaFields {
  mediaKey?: Uint8Array | null
  directPath?: string | null
  url?: string | null
  mimetype?: string | null
  fileLength?: unknown
  fileSha256?: Uint8Array | null
}

/** Fields that carry no user-visible content on their own. */
const PROTOCOL_ONLY = new Set(['senderKeyDistributionMessage', 'messageContextInfo', 'protocolMessage'])

export type MediaKind = 'image' | 'video' | 'audio' | 'document' | 'sticker'

/** What a message shows, before its media is fetched; the entry's remaining fields come from the media. */
export type DescribedMessage = Omit<
  SandboxInboxEntry,
  'id' | 'from' | 'chat' | 'timestamp' | 'mimetype' | 'size' | 'sha256'
> & { media: { kind: MediaKind; fields: MediaFields } | undefined }

const BLANK: Omit<DescribedMessage, 'type'> = {
  text: null,
  caption: null,
  filename: null,
  ptt: false,
  videoNote: false,
  viewOnce: false,
  seconds: null,
  waveform: null,
  location: null,
  contacts: null,
  quotedId: null,
  targetId: null,
  poll: null,
  mentions: [],
  linkPreview: null,
  groupInvite: null,
  expiration: null,
  media: undefined,
}

function contextOf(
  info: proto.IContextInfo | null | undefined,
): Pick<DescribedMessage, 'quotedId' | 'mentions' | 'expiration'> {
  return {
    quotedId: info?.stanzaId ?? null,
    mentions: info?.mentionedJid ?? [],
    expiration: info?.expiration || null,
  }
}

function cardOf(contact: proto.Message.IContactMessage): SandboxContactCard {
  const vcard = contact.vcard ?? ''
  const parsed = parseContactCard(vcard, contact.displayName ?? '')
  return { name: parsed?.name ?? contact.displayName ?? '', phones: parsed?.phones ?? [], vcard }
}

function textMessage(content: proto.IMessage): DescribedMessage | undefined {
  if (content.conversation) return { ...BLANK, type: 'text', text: content.conversation }
  const extended = content.extendedTextMessage
  if (extended?.text == null) return undefined
  const url = extended.matchedText
  const linkPreview =
    url && (extended.title || extended.description)
      ? {
          url,
          title: extended.title ?? null,
          description: extended.description ?? null,
          thumbnail: extended.jpegThumbnail?.length
            ? Buffer.from(extended.jpegThumbnail).toString('base64')
            : null,
        }
      : null
  return { ...BLANK, type: 'text', text: extended.text, linkPreview, ...contextOf(extended.contextInfo) }
}

function mediaMessage(content: proto.IMessage): DescribedMessage | undefined {
  const image = content.imageMessage
  if (image) {
    return {
      ...BLANK,
      type: 'image',
      caption: image.caption ?? null,
      viewOnce: image.viewOnce ?? false,
      media: { kind: 'image', fields: image },
      ...contextOf(image.contextInfo),
    }
  }
  const video = content.videoMessage ?? content.ptvMessage
  if (video) {
    return {
      ...BLANK,
      type: 'video',
      caption: video.caption ?? null,
      videoNote: Boolean(content.ptvMessage),
      viewOnce: video.viewOnce ?? false,
      seconds: video.seconds ?? null,
      media: { kind: 'video', fields: video },
      ...contextOf(video.contextInfo),
    }
  }
  const audio = content.audioMessage
  if (audio) {
    return {
      ...BLANK,
      type: 'audio',
      ptt: audio.ptt ?? false,
      seconds: audio.seconds ?? null,
      waveform: audio.waveform?.length ? [...audio.waveform] : null,
      viewOnce: audio.viewOnce ?? false,
      media: { kind: 'audio', fields: audio },
      ...contextOf(audio.contextInfo),
    }
  }
  const sticker = content.stickerMessage
  if (sticker) {
    return {
      ...BLANK,
      type: 'sticker',
      media: { kind: 'sticker', fields: sticker },
      ...contextOf(sticker.contextInfo),
    }
  }
  const document = content.documentMessage
  if (document) {
    return {
      ...BLANK,
      type: 'document',
      caption: document.caption ?? null,
      filename: document.fileName ?? null,
      media: { kind: 'document', fields: document },
      ...contextOf(document.contextInfo),
    }
  }
  return undefined
}

/** A message acting on an earlier one: a reaction, an edit, a delete for everyone. */
function actionMessage(content: proto.IMessage): DescribedMessage | undefined {
  const reaction = content.reactionMessage
  if (reaction) {
    return { ...BLANK, type: 'reaction', text: reaction.text ?? '', targetId: reaction.key?.id ?? null }
  }
  const protocol = content.protocolMessage
  // The chat's disappearing-messages timer, as the apps send it when someone changes it.
  if (protocol?.type === proto.Message.ProtocolMessage.Type.EPHEMERAL_SETTING) {
    return { ...BLANK, type: 'disappearing', expiration: protocol.ephemeralExpiration ?? 0 }
  }
  const targetId = protocol?.key?.id
  if (!protocol || !targetId) return undefined
  if (protocol.type === proto.Message.ProtocolMessage.Type.REVOKE)
    return { ...BLANK, type: 'revoke', targetId }
  if (protocol.type === proto.Message.ProtocolMessage.Type.MESSAGE_EDIT) {
    const edited = normalizeMessageContent(protocol.editedMessage)
    const text = edited?.conversation ?? edited?.extendedTextMessage?.text ?? null
    return { ...BLANK, type: 'edit', text, targetId }
  }
  return undefined
}

function pollMessage(content: proto.IMessage): DescribedMessage | undefined {
  const creation =
    content.pollCreationMessage ?? content.pollCreationMessageV2 ?? content.pollCreationMessageV3
  if (!creation) return undefined
  const poll = {
    question: creation.name ?? '',
    options: (creation.options ?? []).map((option) => option.optionName ?? ''),
    selectable: creation.selectableOptionsCount ?? 0,
  }
  return { ...BLANK, type: 'poll', text: poll.question, poll }
}

function otherMessage(content: proto.IMessage): DescribedMessage | undefined {
  const location = content.locationMessage
  if (location) {
    return {
      ...BLANK,
      type: 'location',
      location: {
        latitude: location.degreesLatitude ?? 0,
        longitude: location.degreesLongitude ?? 0,
        name: location.name ?? null,
        address: location.address ?? null,
      },
      ...contextOf(location.contextInfo),
    }
  }
  if (content.contactMessage) {
    const card = cardOf(content.contactMessage)
    return {
      ...BLANK,
      type: 'contact',
      text: content.contactMessage.displayName ?? card.name,
      contacts: [card],
      ...contextOf(content.contactMessage.contextInfo),
    }
  }
  const invite = content.groupInviteMessage
  if (invite) {
    return {
      ...BLANK,
      type: 'group_invite',
      text: invite.caption ?? null,
      groupInvite: {
        groupId: invite.groupJid ?? '',
        subject: invite.groupName ?? '',
        code: invite.inviteCode ?? '',
        expiration: Number(invite.inviteExpiration ?? 0),
      },
    }
  }
  const array = content.contactsArrayMessage
  if (array) {
    return {
      ...BLANK,
      type: 'contact',
      text: array.displayName ?? null,
      contacts: (array.contacts ?? []).map(cardOf),
      ...contextOf(array.contextInfo),
    }
  }
  return undefined
}

/** Reads the user-visible part of a message; undefined for protocol-only messages (sender keys, receipts, ...). */
export function describeMessage(message: proto.IMessage): DescribedMessage | undefined {
  const sent = message.deviceSentMessage?.message ?? message
  // View-once media comes wrapped; the wrapper is the flag, whatever the inner message says.
  const wrappedViewOnce = Boolean(
    sent.viewOnceMessage ?? sent.viewOnceMessageV2 ?? sent.viewOnceMessageV2Extension,
  )
  const content = normalizeMessageContent(sent) ?? sent
  const described =
    textMessage(content) ??
    mediaMessage(content) ??
    actionMessage(content) ??
    pollMessage(content) ??
    otherMessage(content)
  if (described) return wrappedViewOnce ? { ...described, viewOnce: true } : described
  const visible = Object.entries(content).filter(([key, value]) => value != null && !PROTOCOL_ONLY.has(key))
  return visible.length ? { ...BLANK, type: 'unknown' } : undefined
}
