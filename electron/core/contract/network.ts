import type { Logger } from '../logger'
import type { CloseVerdict } from './instance-state'
import type { KindContent, LinkPreview } from './kinds'
import type { DeliveryStatus, LinkdeskMessage } from './message'

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

/**
 * The network's key of a message, kept with its encoded content so the adapter can download its media
 * later; opaque outside the adapter (and stored as is).
 */
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

/** A message that reached this account: received, or sent from the phone or another linked device. */
export interface WaInboundMessage {
  /** The message in Linkdesk's words; `media.download_url` is left for the API to fill in. */
  message: LinkdeskMessage
  networkKey: WaMessageKey
  /** The message content, protobuf-encoded: store it to answer `getMessage` and to download its media later. */
  content: Uint8Array
  /** Set when the message acts on an earlier one (a reaction, an edit, a delete for everyone). */
  action?: WaMessageAction
}

/** What a message does to an earlier one, named by the earlier one's id. */
export type WaMessageAction =
  | { kind: 'reaction'; target: string; emoji: string }
  | { kind: 'edit'; target: string; text: string | null }
  | { kind: 'revoke'; target: string }
  /**
   * A vote (or a changed vote) on a poll: the option names picked, and their hashes as the network carries them;
   * both null when the poll is not stored here (its vote is encrypted with the poll's secret, so it cannot be read).
   */
  | {
      kind: 'vote'
      target: string
      voter: string
      options: string[] | null
      hashes: Uint8Array[] | null
      /** The poll's stored content the vote was read with (the tally reads its options from it); null with them. */
      poll: Uint8Array | null
    }

/** A status change of a message this account sent. Match it by `id`: `chat` may be a LID. */
export interface WaStatusUpdate {
  id: string
  chat: string
  status: DeliveryStatus
  /** In groups, the member whose receipt this is. */
  participant: string | null
  /** The member's other id (phone number or LID chat id), when the network or the LID mapping knows it. */
  participantAlt?: string | null
  /** Unix seconds, as a string, when known. */
  timestamp: string | null
  /** Network error code for `failed` (e.g. 463), when given. */
  errorCode: string | null
}

/** A link preview attached to a text (declared by the text kind). */
export type WaLinkPreview = LinkPreview

/**
 * What to send: a content one of the kinds builds and writes (electron/core/contract/kinds/), or an action on an
 * earlier message, which the adapter writes in message-mapping.ts.
 */
export type WaOutgoingContent =
  | KindContent
  /** An emoji on an earlier message; an empty one takes the reaction back. */
  | { kind: 'reaction'; target: WaMessageKey; emoji: string }
  /** A new text for a text this account sent. */
  | { kind: 'edit'; target: WaMessageKey; text: string }
  /** Deletes a message this account sent, for everyone. */
  | { kind: 'revoke'; target: WaMessageKey }
  /** A stored message, sent again to another chat marked as forwarded. */
  | { kind: 'forward'; original: WaQuotedMessage }

/** A stored message to quote: its network key (or one made from the stored message) and encoded content. */
export interface WaQuotedMessage {
  key: WaMessageKey
  content: Uint8Array
}

/** How a message is sent: under which id, and what any kind may add (the reply's quote, the mentions). */
export interface WaSendOptions {
  timeoutMs?: number
  /** Send under this id (one from newMessageId): the same id sent again is one message to the recipient. */
  messageId?: string
  quoted?: WaQuotedMessage
  mentions?: string[]
  /** Seconds the message lasts (the chat's disappearing-messages timer), carried as the network carries it. */
  expiration?: number
  /** Called with the message as it will go out, before anything is sent; if it rejects, nothing is. */
  beforeSending?(message: WaSentMessage): Promise<void>
  /** A status update (sent to `status@broadcast`): who it goes to, and how a text one looks. */
  status?: WaStatusAudience
}

/** Who a status update goes to (chat ids, the account's own included) and a text status's look. */
export interface WaStatusAudience {
  recipients: string[]
  /** `#RRGGBB` or `#AARRGGBB`. */
  backgroundColor?: string
  /** The network's font number (ExtendedTextMessage.FontType). */
  font?: number
}

/**
 * The seed's sent-message result, the `message` field of a successful send_message answer. Its protocol-shaped
 * names are the public contract; only the adapter builds it.
 */
export interface SentAnswer {
  key: { remoteJid: string; fromMe: true; id: string }
  message: Record<string, unknown>
  /** Unix seconds, as a string. */
  messageTimestamp: string
}

/** What a message holds, in Linkdesk's words: the part of a LinkdeskMessage that is not who, where or when. */
export type WaMessageContent = Omit<
  LinkdeskMessage,
  | 'id'
  | 'chat'
  | 'is_group'
  | 'from_me'
  | 'sender'
  | 'sender_phone'
  | 'sender_lid'
  | 'push_name'
  | 'timestamp'
>

/** The result of a send: its id and time, the seed's answer, and the encoded content to store for `getMessage`. */
export interface WaSentMessage {
  id: string
  /** Unix seconds, as a string. */
  timestamp: string
  answer: SentAnswer
  /** What was sent, read back as an incoming message would be. */
  shown: WaMessageContent
  content: Uint8Array
}

/** A number looked up on the network. */
export interface WaNumberLookup {
  number: string
  /** The id to send to (the network may normalise the number), or null when the number is not on it. */
  jid: string | null
}

/**
 * What the messages part supplies to the adapter: the stored content of sent messages (for the network's
 * retry requests) and where incoming messages and status changes go. Handlers must not throw.
 */
export interface NetworkTrafficHandlers {
  /** The stored `content` of a message by its id, or undefined when unknown (never a placeholder). */
  getMessage(instanceId: string, messageId: string): Promise<Uint8Array | undefined> | Uint8Array | undefined
  /**
   * A message the network delivered, before the adapter tells the network so (its delivery receipt): keep
   * it durably before returning, since the network forgets a receipted message and the session cannot
   * decrypt it again. Throwing withholds the receipt, so the network delivers the message again later.
   */
  onDecrypted(instanceId: string, message: WaInboundMessage, context: { live: boolean }): Promise<void> | void
  /**
   * Messages reported otherwise (this app's own sends, the phone's history); `live` is false for messages
   * that arrived while offline and for the echo of this app's own sends.
   */
  onMessages(instanceId: string, messages: WaInboundMessage[], context: { live: boolean }): void
  onStatuses(instanceId: string, updates: WaStatusUpdate[]): void
  /** A subscribed contact's presence changed (online, offline, typing, recording). */
  onPresence(instanceId: string, updates: WaPresenceUpdate[]): void
  /** Someone is calling the account. */
  onCall(instanceId: string, call: WaCallOffer): void
  /** The phone's history sync: its recent chats' messages, and how many of each chat's are unread. */
  onHistory(instanceId: string, history: WaHistory): void
  /** A group changed (members, subject, description, settings, picture), or the account was put in one. */
  onGroupChange(instanceId: string, change: WaGroupChange, account: WaAccount): void
  /**
   * The network told the account that a LID and a phone number are one person's (a message's envelope, a
   * group notification, the app state, an answer to a query): their chats become one.
   */
  onLidPairs(instanceId: string, pairs: WaLidPair[]): void
  /** Names the phone's owner saved for contacts (the account's app state), as they arrive or change. */
  onSavedNames(instanceId: string, names: Array<{ chat: string; name: string }>): void
  /** A post arrived in a channel this account follows (or owns, posted from another device). */
  onChannelPost(instanceId: string, post: WaChannelPost): Promise<void> | void
  /** Chats' settings changed in the account's app state (archive, pin, mute, unread). */
  onChatSettings(instanceId: string, changes: WaChatSettingsChange[]): void
  /** The account's app state changed otherwise (by this app, the phone or another linked device): stars, … */
  onAppState(instanceId: string, changes: WaAppStateChange[]): void
  /** The stored content of a poll this account created or received, to decrypt its votes; undefined if unknown. */
  pollContent(instanceId: string, pollId: string): Promise<Uint8Array | undefined>
}

/** A LID and a phone number the network gave as one person's, as chat ids (`…@lid`, `…@s.whatsapp.net`). */
export interface WaLidPair {
  lid: string
  phone: string
}

/** An incoming call, as it starts ringing. */
export interface WaCallOffer {
  /** The network's call id. */
  id: string
  /** The caller's chat id (a phone number or a LID). */
  from: string
  /** The caller's phone number chat id, when the network gave it beside a LID (or the LID mapping knows it). */
  callerPhone: string | null
  /** The caller's LID chat id, when known. */
  callerLid?: string | null
  video: boolean
  /** A group call, and its group when known. */
  groupJid: string | null
  group: boolean
  /** Rang while this client was away. */
  offline: boolean
  /** Unix seconds. */
  timestamp: number
}

/** The messaging operations of one connected instance. */
export interface WaConnection {
  readonly account: WaAccount
  /**
   * A WhatsApp Business account: the network said so when this device linked (the phone's platform is
   * WhatsApp Business, smba or smbi). Only these have labels.
   */
  readonly business: boolean
  /** The socket this connection runs on: the same for as long as that socket lives, another after a reconnect. */
  readonly linkId: number
  /** A fresh message id in the network's format, to record before sending under it. */
  newMessageId(): string
  /**
   * Sends to a chat id (`<number>@s.whatsapp.net`, `<id>@g.us`, `<lid>@lid`) under `messageId` if given
   * (the same id sent again is one message to the recipient), once `beforeSending` resolved; resolves when
   * written to the socket.
   */
  send(to: string, content: WaOutgoingContent, options?: WaSendOptions): Promise<WaSentMessage>
  /**
   * Sends a message that was sent before again, from its stored encoding and under its id: the network and the
   * recipient take it as the same message (one copy). Resolves when written to the socket.
   */
  resend(to: string, id: string, content: Uint8Array): Promise<void>
  /** Which numbers are on the network (digits with country code). */
  lookup(numbers: readonly string[]): Promise<WaNumberLookup[]>
  /** Downloads and decrypts the media of a message from its stored key and content. */
  downloadMedia(key: WaMessageKey, content: Uint8Array): Promise<Buffer>
  /** Sets this account's about text, which contacts read. */
  setAbout(text: string): Promise<void>
  /** The account's display name (its push name), synced to its devices through app state. */
  setName(name: string): Promise<void>
  /** Sets this account's profile picture (any image; Baileys makes it the square JPEG the apps show). */
  setPicture(image: Buffer): Promise<void>
  /** This account's privacy settings, by the network's category names (last, online, profile, status, …). */
  privacy(): Promise<Record<string, string>>
  /** Changes one privacy category. */
  setPrivacy(category: WaPrivacyCategory, value: string): Promise<void>
  /** Blocks (or unblocks) a contact: the network then stops delivering its messages. */
  setBlocked(chat: string, blocked: boolean): Promise<void>
  /** The contacts this account blocked: their chat ids, with the phone number when the network maps it. */
  blocklist(): Promise<Array<{ chat: string; phone: string | null }>>
  /** Declines a ringing call. */
  rejectCall(callId: string, from: string): Promise<void>
  /** A contact's or group's profile: its picture's address on the network (null: none) and its about text. */
  profile(chat: string): Promise<{ pictureUrl: string | null; about: string | null }>
  /** Fetches a picture from the network's media host (trusted as this connection's sockets trust it). */
  fetchPicture(url: string, maxBytes: number): Promise<Buffer>
  /** The LID of an account by its phone chat id, from Baileys' LID mapping (asking the network when unknown). */
  lidOf(chat: string): Promise<string | null>
  /** The phone-number chat id of a LID, from Baileys' LID mapping only (the network does not tell a hidden one). */
  phoneOf(lid: string): Promise<string | null>
  /** Sends read receipts for received messages (blue ticks, where the account's privacy allows them). */
  read(keys: readonly WaMessageKey[]): Promise<void>
  /** Shows a state in a chat (typing, recording, paused) or the account's availability (no chat). */
  presence(state: WaPresence, chat?: string): Promise<void>
  /** Asks the network for a contact's presence: its changes arrive through onPresence. */
  subscribePresence(chat: string): Promise<void>
  /**
   * Changes one of the chat's settings in the account's app state (synced to the phone and the other linked
   * devices): archive and unread name the chat's newest message, as the network asks.
   */
  modifyChat(chat: string, change: WaChatModification): Promise<void>
  /**
   * Sets the chat's disappearing-messages timer (seconds; 0 turns it off): a protocol message to a contact, the
   * group's setting for a group. Every member's apps then keep the chat's messages that long.
   */
  setDisappearing(chat: string, seconds: number): Promise<void>
  /** Groups: read, create, administer, invite, join and leave. */
  readonly groups: WaGroups
  /** Channels (newsletters): followed, followed and left, read, reacted to, created and posted to. */
  readonly channels: WaChannels
}

/** A channel (newsletter) as the network describes it to this account. */
export interface WaChannel {
  /** `<digits>@newsletter` */
  id: string
  name: string
  description: string
  /** The invite code (the end of its `https://whatsapp.com/channel/<code>` link). */
  invite: string | null
  followers: number
  /** This account's part in it. */
  role: 'owner' | 'admin' | 'follower' | 'guest'
  /** Unix seconds. */
  createdAt: number | null
}

/** A post in a channel, as the network keeps it (posts are plaintext: anyone may read them). */
export interface WaChannelPost {
  channel: string
  /** The channel's number of the post (`server_id`), which reactions name; null when the network gave none. */
  serverId: string | null
  /** The message id its author's device sent it under. */
  id: string
  /** Unix seconds. */
  timestamp: number
  content: Pick<WaMessageContent, 'type' | 'text' | 'caption' | 'media'>
  /** Reactions counted by emoji (on fetched posts; none on a post as it arrives). */
  reactions: Array<{ emoji: string; count: number }>
}

/** What a post to one's own channel holds: a text, or a medium with an optional caption. */
export type WaChannelPostContent =
  | { kind: 'text'; text: string }
  | { kind: 'media'; media: 'image' | 'video'; data: Buffer; mimetype: string; caption: string | null }

/** A post's file as the network's media host served it, with the SHA-256 the post states for it (null: none). */
export interface WaChannelFile {
  data: Buffer
  mimetype: string | null
  fileName: string | null
  sha256: Buffer | null
}

/** The channel operations of one connected instance; a channel the network does not know is `channel_not_found`. */
export interface WaChannels {
  /** The channels this account follows or owns. */
  list(): Promise<WaChannel[]>
  /** A channel by its id or by an invite code. */
  get(key: { id: string } | { invite: string }): Promise<WaChannel>
  create(name: string, description: string | null): Promise<WaChannel>
  follow(channel: string): Promise<void>
  unfollow(channel: string): Promise<void>
  /** The newest posts, oldest first; `before`: older than that server id. */
  posts(channel: string, count: number, before?: string): Promise<WaChannelPost[]>
  /** Reacts to a post by its server id; an empty emoji takes the reaction back. */
  react(channel: string, serverId: string, emoji: string): Promise<void>
  /** Posts to a channel this account owns; resolves with the post's message id and the network's server id. */
  post(channel: string, content: WaChannelPostContent): Promise<{ id: string; serverId: string | null }>
  /**
   * The file a post carries, fetched from the network's media host by its direct path (a channel's media are
   * not encrypted); null when the post has none. A post the channel does not have is `post_not_found`, a file
   * the host no longer holds `media_expired`, one over `maxBytes` `payload_too_large`.
   */
  file(channel: string, serverId: string, maxBytes: number): Promise<WaChannelFile | null>
}

/** One change to a chat's settings in the account's app state. */
export type WaChatModification =
  | { kind: 'archive'; archived: boolean; last: WaLastMessage }
  | { kind: 'pin'; pinned: boolean }
  /** `until`: Unix milliseconds (-1: always); null unmutes. */
  | { kind: 'mute'; until: number | null }
  | { kind: 'unread'; unread: boolean; last: WaLastMessage }
  | { kind: 'star'; message: WaMessageKey; starred: boolean }
  /** Clears the chat's messages up to `last` on the account's devices; the chat stays in their lists. */
  | { kind: 'clear'; last: WaLastMessage }
  /** Deletes the chat (its messages up to `last`) from the account's devices' lists. */
  | { kind: 'delete'; last: WaLastMessage }
  /** Business accounts: a label created, renamed, recoloured or deleted. */
  | { kind: 'label_edit'; label: WaLabel }
  /** Business accounts: a label put on (or taken off) the chat, or one message of it. */
  | { kind: 'label_chat'; labelId: string; labeled: boolean }
  | { kind: 'label_message'; labelId: string; messageId: string; labeled: boolean }

/** A Business account's label as its app state carries it. */
export interface WaLabel {
  /** The network's id (digits). */
  id: string
  name: string
  /** The apps' colour index (0–19). */
  color: number
  deleted: boolean
}

/** A chat's newest message, by its network key and time (Unix seconds). */
export interface WaLastMessage {
  key: WaMessageKey
  timestamp: number
}

/**
 * A chat's settings as the account's app state changed them (by this app, the phone or another linked
 * device): only what changed is set.
 */
export interface WaChatSettingsChange {
  chat: string
  archived?: boolean
  pinned?: boolean
  /** Unix milliseconds the mute ends (-1: always); null: not muted. */
  mutedUntil?: number | null
  /** Marked unread by hand (false: read). */
  unread?: boolean
  /** The disappearing-messages timer in seconds (0: off). */
  disappearing?: number
}

/** A change of the account's app state beside the chats' settings, as the adapter read it. */
export type WaAppStateChange =
  | {
      kind: 'star'
      /** The chat id as the app state names it. */
      chat: string
      messageId: string
      fromMe: boolean
      starred: boolean
    }
  /** A chat cleared elsewhere: its messages up to `upTo` (Unix seconds) went from the account's devices. */
  | { kind: 'clear'; chat: string; upTo: number }
  /** A chat deleted elsewhere: its messages up to `upTo` (Unix seconds) went with it. */
  | { kind: 'delete'; chat: string; upTo: number }
  | ({ kind: 'label_edit' } & WaLabel)
  | { kind: 'label_chat'; labelId: string; chat: string; labeled: boolean }
  | { kind: 'label_message'; labelId: string; chat: string; messageId: string; labeled: boolean }

/** A member of a group: addressed by LID or phone number, with the other address where the network gave it. */
export interface WaGroupParticipant {
  jid: string
  /** Digits with country code. */
  phone: string | null
  /** `<lid>@lid`. */
  lid: string | null
  role: 'superadmin' | 'admin' | null
}

/** A group as the network describes it to a member. */
export interface WaGroup {
  id: string
  subject: string
  description: string | null
  /** The creator's chat id (often a LID), and phone number when known. */
  owner: string | null
  ownerPhone: string | null
  size: number
  /** Unix seconds. */
  createdAt: number | null
  /** Only admins send. */
  announce: boolean
  /** Only admins edit the group's info. */
  restrict: boolean
  participants: WaGroupParticipant[]
  /** A community: the parent group of linked groups (it takes no messages itself). */
  isCommunity: boolean
  /** The community this group is linked to, or null. */
  community: string | null
  /** The community's announcement group (linked to it; only admins send). */
  isAnnouncement: boolean
}

/** A group linked to a community, as the community lists it (members may not be in it). */
export interface WaLinkedGroup {
  id: string
  subject: string
  size: number | null
  isAnnouncement: boolean
}

/** One participant's result of a member change: `status` as the network writes it (200, 403, 404, 409…). */
export interface WaParticipantResult {
  jid: string
  status: string
  /** For an add the participant's privacy refused: the invitation the network made instead. */
  addRequest: { code: string; expiration: number } | null
}

/** The group settings, by the network's names. */
export type WaGroupSetting = 'announcement' | 'not_announcement' | 'locked' | 'unlocked'

/** The group operations of one connected instance; a group not there for the account is `group_not_found`. */
export interface WaGroups {
  list(): Promise<WaGroup[]>
  get(group: string): Promise<WaGroup>
  /** Makes a group; `refused` are the participants the network left out (privacy: 403 with an invitation). */
  create(
    subject: string,
    participants: readonly string[],
  ): Promise<{ group: WaGroup; refused: WaParticipantResult[] }>
  changeParticipants(
    group: string,
    action: 'add' | 'remove' | 'promote' | 'demote',
    participants: readonly string[],
  ): Promise<WaParticipantResult[]>
  setSubject(group: string, subject: string): Promise<void>
  /** null removes the description. */
  setDescription(group: string, text: string | null): Promise<void>
  setSetting(group: string, setting: WaGroupSetting): Promise<void>
  setPicture(group: string, image: Buffer): Promise<void>
  /** Makes the picture as setPicture would, sending nothing: media_unavailable when it cannot be read. */
  checkPicture(image: Buffer): Promise<void>
  /** The group's invite code; `revoke` makes a new one (the old stops working). */
  inviteCode(group: string, revoke: boolean): Promise<string>
  /** What an invite code opens, before joining. */
  inviteInfo(code: string): Promise<WaGroup>
  /** Joins by an invite code; answers the group's id. */
  join(code: string): Promise<string>
  leave(group: string): Promise<void>
  /** Makes a community (and with it, on the network, its announcement group); answers the community. */
  createCommunity(
    subject: string,
    description: string | null,
    participants: readonly string[],
  ): Promise<{ community: WaGroup; refused: WaParticipantResult[] }>
  /** The groups linked to a community, its announcement group among them. */
  linkedGroups(community: string): Promise<WaLinkedGroup[]>
  linkGroup(community: string, group: string): Promise<void>
  unlinkGroup(community: string, group: string): Promise<void>
}

/** A chunk of the phone's history sync. */
export interface WaHistory {
  messages: WaInboundMessage[]
  /** Per chat (as the phone names it), how many of its newest received messages are unread. */
  unread: Array<{ chat: string; count: number }>
}

/** A change to a group the network announced (made by anyone, this account included). */
export type WaGroupChange =
  | {
      kind: 'participants'
      group: string
      action: 'add' | 'remove' | 'promote' | 'demote'
      participants: Array<{ phone: string | null; lid: string | null }>
      /** Who made the change (LID or phone chat id), and the phone number when known. */
      author: string | null
      authorPhone: string | null
    }
  | {
      kind: 'updated'
      group: string
      changes: {
        subject?: string
        description?: string | null
        announce?: boolean
        restrict?: boolean
        picture?: boolean
      }
      author: string | null
      authorPhone: string | null
    }
  /** The account is in a group it did not create: made with it as a member. */
  | { kind: 'created'; group: WaGroup; author: string | null; authorPhone: string | null }
  /** A group was linked to a community, or unlinked from it (the community's notification). */
  | {
      kind: 'linked' | 'unlinked'
      community: string
      group: string
      subject: string | null
      author: string | null
      authorPhone: string | null
    }

/** The privacy categories Baileys can change, by the network's names. */
export type WaPrivacyCategory = 'last' | 'online' | 'profile' | 'status' | 'readreceipts' | 'groupadd'

/** What an account shows others: online or not, and in a chat whether it is typing or recording. */
export type WaPresence = 'available' | 'unavailable' | 'composing' | 'recording' | 'paused'

/** A contact's presence as the network reported it. */
export interface WaPresenceUpdate {
  /** The chat it is about: the contact, or a group. */
  chat: string
  /** Who: the contact, or the group member. */
  participant: string
  /** Their other address where the LID mapping knows it (a phone number's LID, a LID's phone number). */
  participantAlt?: string | null
  presence: WaPresence
  /** Unix seconds, when the contact shares it. */
  lastSeen: number | null
}

/** What one instance's socket reports to its state machine. Called only for the current socket. */
export interface SessionEvents {
  /** A new QR code to show (the exact text the image must encode). */
  qr(text: string): void
  /** The phone scanned the QR (or entered the code): credentials are stored; a restart follows. */
  paired(): void
  /** Logged in and open: the instance can send. */
  open(account: WaAccount): void
  /**
   * The stored account changed (its display name arrives after the connection opened: from the phone's
   * first messages or the app-state sync).
   */
  account(account: WaAccount): void
  /** The phone changed or removed the account's profile picture. */
  avatarChanged(): void
  /** The socket closed by itself (never for closes this session asked for). */
  close(verdict: CloseVerdict, detail: string): void
}

/** What the state machine needs from the adapter (the wa adapter's WaSession implements it). */
export interface SessionPort {
  readonly linked: boolean
  readonly awaitingScan: boolean
  readonly account: WaAccount | undefined
  connect(): void
  end(): void
  logout(): Promise<void>
  forgetCredentials(): void
  requestPairingCode(phone: string): Promise<string>
  /** Fetches the current client version; true when it differs from the one the last socket announced. */
  refreshVersion(): Promise<boolean>
  profile(): Promise<{ account: WaAccount; avatar: string }>
  connection(): WaConnection | undefined
}

/** Opens an instance's session on the network (the wa adapter's, chosen by the composition root). */
export type OpenSession = (instanceId: string, logger: Logger, events: SessionEvents) => SessionPort

/**
 * Every option of a poll with the voters who picked it, from each voter's latest vote (the poll's stored
 * protocol content and the votes' option hashes): the wa adapter reads the protocol for the messages part.
 */
export type TallyVotes = (
  content: Uint8Array,
  votes: ReadonlyArray<{ voter: string; hashes: readonly Uint8Array[] }>,
) => Array<{ option: string; voters: string[] }>

/** The version in use and where it came from, for `/api/v1/health`. */
export interface WaVersionInfo {
  version: string
  source: 'bundled' | 'fetched'
  /** Unix seconds of the last fetch attempt; null before the first. */
  checked_at: number | null
}
