/**
 * Linkdesk's own words for what the WhatsApp adapter produces and accepts. Nothing here is a Baileys type:
 * the rest of the app (instances, messages, events) depends on these only.
 */

/** The linked account. */
export interface WaAccount {
  /** `<phone>:<device>@s.whatsapp.net` */
  id: string
  /** Digits with country code. */
  number: string
  /** The account's display name, when known. */
  name: string | null
  /** `<lid>:<device>@lid`, when known. */
  lid: string | null
}

/** Identifies a message: the chat it is in, who sent it (groups), and its id. */
export interface WaMessageKey {
  id: string
  /** The chat id as the network gave it: `<number>@s.whatsapp.net`, `<lid>@lid` or `<id>@g.us`. */
  chat: string
  /** The chat's other address (phone number for a LID chat, or the reverse), when the network gave it. */
  chatAlt: string | null
  fromMe: boolean
  /** The sender in a group. */
  participant: string | null
  participantAlt: string | null
}

export type WaContentType = 'text' | 'image' | 'video' | 'audio' | 'document' | 'sticker' | 'other'

/** Facts about a media attachment, without its bytes. */
export interface WaMediaInfo {
  mimetype: string | null
  fileName: string | null
  size: number | null
  seconds: number | null
  /** A voice note rather than an audio file. */
  ptt: boolean
  /** Hex SHA-256 of the plaintext file. */
  sha256: string | null
}

/** The message a reply refers to, as far as the reply carries it. */
export interface WaQuotedMessage {
  id: string
  /** Who wrote the quoted message (groups, and replies to this account's messages). */
  participant: string | null
  type: WaContentType
  text: string | null
}

/** A message that reached this account: received, or sent from the phone or another linked device. */
export interface WaInboundMessage {
  key: WaMessageKey
  /** Unix seconds, as a string. */
  timestamp: string
  pushName: string | null
  type: WaContentType
  /** The protocol's name for the content (e.g. `locationMessage`), for types Linkdesk does not map. */
  contentName: string | null
  text: string | null
  caption: string | null
  media: WaMediaInfo | null
  /** The message this one replies to, when it is a reply. */
  quoted: WaQuotedMessage | null
  /** The message content, protobuf-encoded: store it to answer `getMessage` and to download its media later. */
  content: Uint8Array
}

export type WaStatus = 'failed' | 'pending' | 'sent' | 'delivered' | 'read' | 'played'

/** A status change of a message this account sent. Match it by `id`: `chat` may be a LID. */
export interface WaStatusUpdate {
  id: string
  chat: string
  status: WaStatus
  /** In groups, the member whose receipt this is. */
  participant: string | null
  /** Unix seconds, as a string, when known. */
  timestamp: string | null
  /** Network error code for `failed` (e.g. 463), when given. */
  errorCode: string | null
}

/** What to send. Media comes from a URL the adapter may fetch (http(s), data:, or a local file path) or bytes. */
export type WaOutgoingContent =
  | { kind: 'text'; text: string }
  | {
      kind: 'image' | 'video' | 'audio' | 'document'
      media: { url: string } | Buffer
      mimetype?: string
      fileName?: string
      caption?: string
      /** Audio only: send as a voice note (must be OGG/Opus). */
      ptt?: boolean
    }

/** The result of a send: what the v1 API answers, plus the encoded content to store for `getMessage`. */
export interface WaSentMessage {
  key: { remoteJid: string; fromMe: true; id: string; participant?: string }
  /** The content as plain JSON, e.g. `{ extendedTextMessage: { text } }`. */
  message: Record<string, unknown>
  /** Unix seconds, as a string. */
  messageTimestamp: string
  content: Uint8Array
}

/** A number looked up on the network. */
export interface WaNumberLookup {
  number: string
  exists: boolean
  /** The id to send to (the network may normalise the number). */
  jid: string | null
}

/**
 * What the messages part supplies to the adapter: the stored content of sent messages (for the network's
 * retry requests) and where incoming messages and status changes go. Handlers must not throw.
 */
export interface WaMessageHooks {
  /** The stored `content` of a message by its id, or undefined when unknown (never a placeholder). */
  getMessage(instanceId: string, messageId: string): Promise<Uint8Array | undefined> | Uint8Array | undefined
  /** `live` is false for messages that arrived while offline and for the echo of this app's own sends. */
  onMessages(instanceId: string, messages: WaInboundMessage[], context: { live: boolean }): void
  onStatuses(instanceId: string, updates: WaStatusUpdate[]): void
}

/** The messaging operations of one connected instance. */
export interface WaConnection {
  readonly account: WaAccount
  /** Sends to a chat id (`<number>@s.whatsapp.net`, `<id>@g.us`, `<lid>@lid`); resolves when written to the socket. */
  send(to: string, content: WaOutgoingContent, options?: { timeoutMs?: number }): Promise<WaSentMessage>
  /** Which numbers are on the network (digits with country code). */
  lookup(numbers: readonly string[]): Promise<WaNumberLookup[]>
  /** Downloads and decrypts the media of a message from its stored key and content. */
  downloadMedia(key: WaMessageKey, content: Uint8Array): Promise<Buffer>
}
