import type { proto } from '@whiskeysockets/baileys'

export type InboxEntryType =
  | 'text'
  | 'image'
  | 'video'
  | 'audio'
  | 'document'
  | 'sticker'
  | 'reaction'
  | 'location'
  | 'contact'
  | 'unknown'

/** A message as the receiving simulated account read it. Absent fields are null. */
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

export interface DescribedMessage {
  type: InboxEntryType
  text: string | null
  caption: string | null
  filename: string | null
  media: { kind: MediaKind; fields: MediaFields } | undefined
}

export type MediaKind = 'image' | 'video' | 'audio' | 'document' | 'sticker'

/** Reads the user-visible part of a message; undefined for protocol-only messages (sender keys, receipts, ...). */
export function describeMessage(message: proto.IMessage): DescribedMessage | undefined {
  const content = message.deviceSentMessage?.message ?? message
  const blank = { text: null, caption: null, filename: null, media: undefined }
  if (content.conversation) return { ...blank, type: 'text', text: content.conversation }
  if (content.extendedTextMessage?.text != null) {
    return { ...blank, type: 'text', text: content.extendedTextMessage.text }
  }
  if (content.imageMessage) {
    const image = content.imageMessage
    return {
      ...blank,
      type: 'image',
      caption: image.caption ?? null,
      media: { kind: 'image', fields: image },
    }
  }
  if (content.videoMessage) {
    const video = content.videoMessage
    return {
      ...blank,
      type: 'video',
      caption: video.caption ?? null,
      media: { kind: 'video', fields: video },
    }
  }
  if (content.audioMessage)
    return { ...blank, type: 'audio', media: { kind: 'audio', fields: content.audioMessage } }
  if (content.stickerMessage) {
    return { ...blank, type: 'sticker', media: { kind: 'sticker', fields: content.stickerMessage } }
  }
  const document = content.documentMessage ?? content.documentWithCaptionMessage?.message?.documentMessage
  if (document) {
    return {
      ...blank,
      type: 'document',
      caption: document.caption ?? null,
      filename: document.fileName ?? null,
      media: { kind: 'document', fields: document },
    }
  }
  if (content.reactionMessage)
    return { ...blank, type: 'reaction', text: content.reactionMessage.text ?? null }
  if (content.locationMessage) return { ...blank, type: 'location' }
  if (content.contactMessage)
    return { ...blank, type: 'contact', text: content.contactMessage.displayName ?? null }
  const visible = Object.entries(content).filter(([key, value]) => value != null && !PROTOCOL_ONLY.has(key))
  return visible.length ? { ...blank, type: 'unknown' } : undefined
}
