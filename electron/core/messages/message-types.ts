/** What a message holds, as Linkdesk names it. */
export type MessageType =
  | 'text'
  | 'image'
  | 'video'
  | 'audio'
  | 'document'
  | 'sticker'
  | 'location'
  | 'contact'
  | 'reaction'
  | 'poll'
  | 'unknown'

/** Where a message stands on its way to the recipient (message.status events). */
export type DeliveryStatus = 'sent' | 'delivered' | 'read' | 'played' | 'failed'

/** A media attachment; the bytes are fetched through `download_url` with the same access token. */
export interface MediaInfo {
  mimetype: string | null
  /** Bytes. */
  size: number | null
  /** Documents only. */
  filename: string | null
  /** Hex SHA-256 of the plain content, as the network states it. */
  sha256: string | null
  /** Audio and video length in seconds. */
  seconds: number | null
  /** A voice note rather than an audio file. */
  voice_note: boolean
  /** Where to download the file (GET, same access token as the API). */
  download_url: string | null
}

/** The message a reply refers to. */
export interface QuotedMessage {
  id: string
  /** Who wrote the quoted message, when known. */
  sender: string | null
  type: MessageType
  text: string | null
}

/**
 * A message as Linkdesk shows it in events and answers: who, where, what; never Baileys' own shapes and
 * never media keys.
 */
export interface LinkdeskMessage {
  id: string
  /** The chat: a contact (`<phone>@s.whatsapp.net` or `<lid>@lid`) or a group (`<id>@g.us`). */
  chat: string
  is_group: boolean
  from_me: boolean
  /** Who wrote it: the contact, the group member, or this account. */
  sender: string
  /** The sender's phone number (digits) when known. */
  sender_phone: string | null
  /** The sender's LID (`<digits>@lid`) when known. */
  sender_lid: string | null
  /** The name the sender set for themselves, when the network passed it on. */
  push_name: string | null
  type: MessageType
  /** The text of a text message (or a reaction's emoji, a contact card's name). */
  text: string | null
  /** The caption of an image, video or document. */
  caption: string | null
  media: MediaInfo | null
  quoted: QuotedMessage | null
  /** Unix seconds, as a string. */
  timestamp: string
}

/** A status change of a message this account sent. */
export interface StatusUpdate {
  id: string
  chat: string
  status: DeliveryStatus
  /** In groups, the member whose receipt this is. */
  recipient: string | null
  /** The network's error code when status is failed. */
  error_code: string | null
}
