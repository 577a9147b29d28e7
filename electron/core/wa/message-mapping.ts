import {
  type AnyMessageContent,
  type BinaryNode,
  cleanMessage,
  getContentType,
  isRealMessage,
  type MessageUserReceiptUpdate,
  normalizeMessageContent,
  proto,
  toNumber,
  type WAMessage,
  type WAMessageKey,
  type WAMessageUpdate,
} from '@whiskeysockets/baileys'
import type { Logger } from '../logger'
import { decryptVote, optionNames } from './poll-votes'
import {
  CONTENT_READERS,
  CONTENT_WRITERS,
  contentFields,
  type ContentReading,
  type KindContent,
  type ProtocolContent,
} from '../contract/kinds'
import type { DeliveryStatus, LinkdeskMessage, QuotedMessage } from '../contract/message'
import type {
  SentAnswer,
  WaAccount,
  WaChannelPost,
  WaInboundMessage,
  WaMessageContent,
  WaMessageKey,
  WaOutgoingContent,
  WaQuotedMessage,
  WaSentMessage,
  WaStatusUpdate,
  WaCallOffer,
  WaMessageAction,
  WaPresence,
  WaPresenceUpdate,
} from '../contract/network'

/*
 * The one place where protocol messages become Linkdesk's messages and back. What each kind holds is read and
 * written by its kind module (electron/core/contract/kinds/), on the protocol's plain objects: this adapter finds a
 * content's field and hands it over, and hands what a kind writes to Baileys.
 */

/** The kind of a content and what it holds, as its kind module reads it. */
function readContent(content: proto.IMessage | undefined) {
  const field = getContentType(content)
  const kind = field ? CONTENT_READERS[field] : undefined
  const read = kind?.read as ((inner: unknown) => ContentReading) | undefined
  const reading = content && field ? (read?.(content[field]) ?? {}) : {}
  return { type: kind?.type ?? 'unknown', ...contentFields(reading) }
}

/** The contextInfo of a content's one field: where replies and mentions are. */
function contextOf(content: proto.IMessage): proto.IContextInfo | undefined {
  const field = getContentType(content)
  const inner = field
    ? (content[field] as { contextInfo?: proto.IContextInfo | null } | undefined)
    : undefined
  return (inner && typeof inner === 'object' ? inner.contextInfo : undefined) ?? undefined
}

/** View-once media travels wrapped (maybe inside a disappearing message), or flagged on the media itself. */
function isViewOnce(message: proto.IMessage, content: proto.IMessage): boolean {
  for (const outer of [message, message.ephemeralMessage?.message]) {
    if (outer?.viewOnceMessage || outer?.viewOnceMessageV2 || outer?.viewOnceMessageV2Extension) return true
  }
  const field = getContentType(content)
  const inner = field ? (content[field] as { viewOnce?: boolean | null } | undefined) : undefined
  return Boolean(inner && typeof inner === 'object' && inner.viewOnce)
}

const PHONE_SUFFIX = '@s.whatsapp.net'
const LID_SUFFIX = '@lid'

/** `<digits>:<device>@s.whatsapp.net` → `<digits>@s.whatsapp.net`; other ids unchanged. */
function bareJid(jid: string): string {
  const at = jid.indexOf('@')
  if (at < 0) return jid
  return `${jid.slice(0, at).replace(/:\d+$/, '')}${jid.slice(at)}`
}

/** The chat of contacts' status updates. */
const STATUS_BROADCAST = 'status@broadcast'

/** The phone-number form and the LID form among two addresses of one person, where given. */
function addresses(primary: string, alternate: string | null): { phone: string | null; lid: string | null } {
  const all = [primary, alternate].filter((jid): jid is string => Boolean(jid)).map(bareJid)
  return {
    phone: all.find((jid) => jid.endsWith(PHONE_SUFFIX)) ?? null,
    lid: all.find((jid) => jid.endsWith(LID_SUFFIX)) ?? null,
  }
}

function timestampOf(value: unknown): string | null {
  if (value === null || value === undefined) return null
  const seconds = toNumber(value as number)
  return Number.isFinite(seconds) && seconds > 0 ? String(seconds) : null
}

function keyOf(key: WAMessageKey): WaMessageKey {
  return {
    id: key.id ?? '',
    chat: key.remoteJid ?? '',
    chatAlt: key.remoteJidAlt ?? null,
    fromMe: Boolean(key.fromMe),
    participant: key.participant ?? null,
    participantAlt: key.participantAlt ?? null,
  }
}

/** The message a reply quotes (from the content's contextInfo), or null when it is not a reply. */
export function quotedOf(content: proto.IMessage): QuotedMessage | null {
  const context = contextOf(content)
  if (!context?.stanzaId) return null
  const quoted = readContent(normalizeMessageContent(context.quotedMessage ?? undefined))
  return {
    id: context.stanzaId,
    sender: context.participant ? bareJid(context.participant) : null,
    type: quoted.type,
    text: quoted.text ?? quoted.caption,
  }
}

/** What a message holds, from the message as it travels and its content unwrapped. */
function contentOf(message: proto.IMessage, content: proto.IMessage): WaMessageContent {
  // In the order the events have always listed a message's fields.
  const { link_preview, group_invite, ...read } = readContent(content)
  return {
    ...read,
    view_once: isViewOnce(message, content),
    mentions: (contextOf(content)?.mentionedJid ?? []).map(bareJid),
    link_preview,
    group_invite,
    quoted: quotedOf(content),
  }
}

/**
 * A message from the network as Linkdesk shows it: the chat and the sender by phone number where known
 * (with the LID beside it), the text or caption, media facts, the quoted message.
 */
function toLinkdeskMessage(
  message: WAMessage,
  content: proto.IMessage,
  own: WaAccount | undefined,
): LinkdeskMessage {
  const key = keyOf(message.key)
  const chat = addresses(key.chat, key.chatAlt)
  const isGroup = key.chat.endsWith('@g.us')
  // A status update is a message to status@broadcast from its poster (the participant), as in a group.
  const shared = isGroup || key.chat === STATUS_BROADCAST
  let sender: { phone: string | null; lid: string | null }
  if (key.fromMe) {
    sender = {
      phone: own ? `${own.number}${PHONE_SUFFIX}` : null,
      lid: own?.lid ? bareJid(own.lid) : null,
    }
  } else if (shared) {
    // Baileys puts a status poster's other address where a 1:1 chat's would be.
    const alternate = isGroup ? key.participantAlt : (key.participantAlt ?? key.chatAlt)
    sender = key.participant ? addresses(key.participant, alternate) : { phone: null, lid: null }
  } else {
    sender = chat
  }
  return {
    id: key.id,
    chat: shared ? key.chat : (chat.phone ?? chat.lid ?? key.chat),
    is_group: isGroup,
    from_me: key.fromMe,
    sender: sender.phone ?? sender.lid ?? (key.participant ? bareJid(key.participant) : bareJid(key.chat)),
    sender_phone: sender.phone ? sender.phone.slice(0, -PHONE_SUFFIX.length) : null,
    sender_lid: sender.lid,
    push_name: message.pushName ?? null,
    ...contentOf(message.message ?? {}, content),
    ...(key.chat === STATUS_BROADCAST && { status_look: statusLookOf(content) }),
    timestamp: timestampOf(message.messageTimestamp) ?? String(Math.floor(Date.now() / 1000)),
  }
}

/** A status update's background (`#AARRGGBB`) and font, as the poster chose them; null for a plain one. */
function statusLookOf(content: proto.IMessage): LinkdeskMessage['status_look'] {
  const text = content.extendedTextMessage
  const argb = text?.backgroundArgb ?? content.audioMessage?.backgroundArgb
  const font = text?.font
  if ((argb === null || argb === undefined) && (font === null || font === undefined)) return null
  return {
    background_color:
      argb === null || argb === undefined
        ? null
        : `#${(argb >>> 0).toString(16).toUpperCase().padStart(8, '0')}`,
    font: font ?? null,
  }
}

/** What a message does to an earlier one: react to it, replace its text, or delete it for everyone. */
function actionOf(
  content: proto.IMessage,
  key: WAMessageKey,
  polls: PollLookup | undefined,
): WaMessageAction | undefined {
  const update = content.pollUpdateMessage
  if (update) return voteOf(update, key, polls)
  const reaction = content.reactionMessage
  if (reaction?.key?.id) return { kind: 'reaction', target: reaction.key.id, emoji: reaction.text ?? '' }
  const protocol = content.protocolMessage
  const target = protocol?.key?.id
  if (!protocol || !target) return undefined
  if (protocol.type === proto.Message.ProtocolMessage.Type.REVOKE) return { kind: 'revoke', target }
  if (protocol.type === proto.Message.ProtocolMessage.Type.MESSAGE_EDIT) {
    const edited = normalizeMessageContent(protocol.editedMessage)
    const text = edited?.conversation ?? edited?.extendedTextMessage?.text ?? null
    return { kind: 'edit', target, text }
  }
  return undefined
}

/** How the mapping reads a vote: the stored poll creations, and this account's own ids. */
export interface PollLookup {
  content(pollId: string): Uint8Array | undefined
  me: { id: string; lid?: string }
}

/** The polls these messages vote on (their creation ids): what a PollLookup must hold to read the votes. */
export function votedPolls(messages: readonly WAMessage[]): string[] {
  const ids = new Set<string>()
  for (const message of messages) {
    const content = message.message ? normalizeMessageContent(message.message) : undefined
    const id = content?.pollUpdateMessage?.pollCreationMessageKey?.id
    if (id) ids.add(id)
  }
  return [...ids]
}

/**
 * A vote on a poll this account has stored, decrypted to the hashes of the options picked; on a poll it has
 * not stored, a vote whose options are unknown.
 */
function voteOf(
  update: proto.Message.IPollUpdateMessage,
  key: WAMessageKey,
  polls: PollLookup | undefined,
): WaMessageAction | undefined {
  const creation = update.pollCreationMessageKey
  if (!creation?.id || !polls || !update.vote) return undefined
  const ids = (...jids: Array<string | null | undefined>) =>
    jids.filter((jid): jid is string => Boolean(jid) && !jid?.endsWith('@g.us'))
  const mine = ids(polls.me.id, polls.me.lid)
  const voters = key.fromMe ? mine : ids(key.participant, key.participantAlt, key.remoteJid, key.remoteJidAlt)
  const pollContent = polls.content(creation.id)
  if (!pollContent)
    return {
      kind: 'vote',
      target: creation.id,
      voter: voters[0] ?? '',
      options: null,
      hashes: null,
      poll: null,
    }
  const creators = creation.fromMe ? mine : ids(creation.participant, creation.remoteJid)
  const hashes = decryptVote(update.vote, { id: creation.id, content: pollContent, creators, voters })
  if (!hashes) return undefined
  const voter = voters[0] ?? ''
  const options = optionNames(pollContent, hashes)
  return { kind: 'vote', target: creation.id, voter, options, hashes, poll: pollContent }
}

/**
 * Baileys' upserted messages as Linkdesk messages, each with its network key and encoded content; protocol
 * messages, reactions to nothing and stubs are left out, and one that cannot be read is logged and skipped.
 */
export function mapInboundMessages(
  messages: readonly WAMessage[],
  own: WaAccount | undefined,
  log: Logger,
  polls?: PollLookup,
): WaInboundMessage[] {
  const mapped: WaInboundMessage[] = []
  for (const message of messages) {
    if (!message.message || !message.key.id) continue
    const content = normalizeMessageContent(message.message)
    const action = content ? actionOf(content, message.key, polls) : undefined
    if (!content || (!action && !isRealMessage(message))) continue
    try {
      mapped.push({
        message: toLinkdeskMessage(message, content, own),
        networkKey: keyOf(message.key),
        content: proto.Message.encode(message.message).finish(),
        ...(action ? { action } : {}),
      })
    } catch (error) {
      log.error({ err: error, messageId: message.key.id }, 'reading an incoming message failed')
    }
  }
  return mapped
}

/**
 * A message as Baileys hands it over before its receipt (onDecrypted), mapped as its upsert will be: its
 * chat and sender ids normalised the way Baileys cleans them just before the upsert. Undefined when it is
 * not a message Linkdesk announces.
 */
export function mapDecryptedMessage(
  message: WAMessage,
  me: { id: string; lid?: string },
  own: WaAccount | undefined,
  log: Logger,
  polls?: PollLookup,
): WaInboundMessage | undefined {
  const cleaned: WAMessage = { ...message, key: { ...message.key }, message: null }
  cleanMessage(cleaned, me.id, me.lid ?? '')
  return mapInboundMessages([{ ...message, key: cleaned.key }], own, log, polls)[0]
}

/** What a channel post holds, read as any message's content is (a channel's media carry no key to download). */
export function mapChannelPostContent(message: proto.IMessage | null | undefined): WaChannelPost['content'] {
  const { type, text, caption, media } = readContent(normalizeMessageContent(message) ?? undefined)
  return { type, text, caption, media }
}

/** A post that arrived in a followed channel, as the network delivered it (`key.server_id` beside its id). */
export function mapChannelPost(message: WAMessage): WaChannelPost {
  const key = message.key as WAMessage['key'] & { server_id?: string }
  return {
    channel: key.remoteJid ?? '',
    serverId: key.server_id ?? null,
    id: key.id ?? '',
    timestamp: Number(message.messageTimestamp) || 0,
    content: mapChannelPostContent(message.message),
    reactions: [],
  }
}

/** The network's numeric statuses; `pending` (1, not yet acknowledged) is no news for Linkdesk. */
const STATUS_NAMES: Record<number, DeliveryStatus> = {
  0: 'failed',
  2: 'sent',
  3: 'delivered',
  4: 'read',
  5: 'played',
}

/** Status changes of 1:1 messages (`messages.update`). */
export function mapStatusUpdates(updates: readonly WAMessageUpdate[]): WaStatusUpdate[] {
  const mapped: WaStatusUpdate[] = []
  for (const { key, update } of updates) {
    const status = typeof update.status === 'number' ? STATUS_NAMES[update.status] : undefined
    if (!status || !key.id) continue
    mapped.push({
      id: key.id,
      chat: key.remoteJid ?? '',
      status,
      participant: key.participant ?? null,
      timestamp: timestampOf(update.messageTimestamp),
      errorCode: status === 'failed' ? (update.messageStubParameters?.[0] ?? null) : null,
    })
  }
  return mapped
}

/**
 * Receipts folded into an own message's upsert: Baileys' event buffer merges the updates of a message that is
 * still waiting in it into that message, so a delivered or read receipt that came before the send's `append`
 * was flushed arrives only as the upserted message's status. (`sent` comes from the server's ack.)
 */
export function foldedStatusUpdates(messages: readonly WAMessage[]): WaStatusUpdate[] {
  const folded = messages.filter(
    (message) => message.key.fromMe && typeof message.status === 'number' && message.status >= 3,
  )
  return mapStatusUpdates(
    folded.map(({ key, status, messageTimestamp }) => ({ key, update: { status, messageTimestamp } })),
  )
}

/** Per-member receipts of group messages (`message-receipt.update`). */
export function mapReceipts(receipts: readonly MessageUserReceiptUpdate[]): WaStatusUpdate[] {
  const mapped: WaStatusUpdate[] = []
  for (const { key, receipt } of receipts) {
    if (!key.id) continue
    const status: DeliveryStatus | undefined = receipt.playedTimestamp
      ? 'played'
      : receipt.readTimestamp
        ? 'read'
        : receipt.receiptTimestamp
          ? 'delivered'
          : undefined
    if (!status) continue
    mapped.push({
      id: key.id,
      chat: key.remoteJid ?? '',
      status,
      participant: receipt.userJid ?? null,
      timestamp: timestampOf(receipt.playedTimestamp ?? receipt.readTimestamp ?? receipt.receiptTimestamp),
      errorCode: null,
    })
  }
  return mapped
}

/**
 * The server's answer to a message this socket sent: status `sent`, or `failed` with the ack's error. Baileys
 * reports an error ack as a messages.update, which its event buffer may fold into the message's own upsert.
 */
export function mapServerAck(node: BinaryNode): WaStatusUpdate | undefined {
  const { id, from, error, t, participant } = node.attrs
  if (!id) return undefined
  return {
    id,
    chat: from ?? '',
    status: error ? 'failed' : 'sent',
    participant: participant ?? null,
    timestamp: t ?? null,
    errorCode: error ?? null,
  }
}

/** What Linkdesk sends that acts on an earlier message, addressed by its network key. */
type ActionContent = Exclude<WaOutgoingContent, KindContent>

type ActionWriters = {
  [Kind in ActionContent['kind']]: (content: Extract<ActionContent, { kind: Kind }>) => AnyMessageContent
}

/** How each message action is written for Baileys; the kinds write their own contents. */
const ACTION_WRITERS: ActionWriters = {
  reaction: ({ target, emoji }) => ({ react: { text: emoji, key: toProtocolKey(target) } }),
  edit: ({ target, text }) => ({ text, edit: toProtocolKey(target) }),
  revoke: ({ target }) => ({ delete: toProtocolKey(target) }),
  forward: ({ original }) => ({ forward: toQuotedMessage(original) }),
}

function isAction(content: WaOutgoingContent): content is ActionContent {
  return content.kind in ACTION_WRITERS
}

/** A stored message's network key as Baileys addresses it. */
export function toProtocolKey(key: WaMessageKey): WAMessageKey {
  return {
    id: key.id,
    remoteJid: key.chat,
    fromMe: key.fromMe,
    participant: key.participant ?? undefined,
  }
}

/** What to send, as Baileys' content; mentions are chat ids. */
export function toProtocolContent(
  content: WaOutgoingContent,
  mentions: readonly string[] = [],
): AnyMessageContent {
  const written = isAction(content)
    ? (ACTION_WRITERS[content.kind] as (content: ActionContent) => AnyMessageContent)(content)
    : // A kind writes Baileys' content as plain data: the shape Baileys' sendMessage takes.
      ((CONTENT_WRITERS[content.kind]?.write as (content: KindContent) => unknown)(
        content,
      ) as AnyMessageContent)
  // Baileys puts mentions on whichever content it writes; its types declare them on some kinds only.
  return mentions.length ? ({ ...written, mentions: [...mentions] } as AnyMessageContent) : written
}

/** A stored message as Baileys quotes it: the key it was sent or received under, and its content. */
export function toQuotedMessage(quoted: WaQuotedMessage): WAMessage {
  return { key: toProtocolKey(quoted.key), message: proto.Message.decode(quoted.content) }
}

/** The protocol fields that hold a file, as the kinds declare them. */
const SENT_MEDIA_FIELDS = Object.entries(CONTENT_READERS)
  .filter(([, reader]) => reader.holdsFile)
  .map(([field]) => field)

/**
 * Media fields that are safe to show: what the file is, never how to fetch or decrypt it (url, directPath,
 * mediaKey, fileEncSha256) nor the thumbnail bytes.
 */
const SAFE_MEDIA_FIELDS = [
  'mimetype',
  'caption',
  'fileName',
  'title',
  'fileLength',
  'fileSha256',
  'seconds',
  'ptt',
  'width',
  'height',
  'pageCount',
] as const

function record(value: unknown): Record<string, unknown> | undefined {
  return value && typeof value === 'object' && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : undefined
}

/** The media message inside the sent content (as JSON), unwrapping a captioned document or view-once media. */
function sentMedia(message: Record<string, unknown>): [string, Record<string, unknown>] | undefined {
  const wrapped = record(record(message.documentWithCaptionMessage ?? message.viewOnceMessage)?.message)
  for (const source of [message, wrapped]) {
    if (!source) continue
    for (const field of SENT_MEDIA_FIELDS) {
      const media = record(source[field])
      if (media) return [field, media]
    }
  }
  return undefined
}

/** Contents answered with their whole protocol content (there is no file to hide). */
function answeredWhole(content: WaOutgoingContent): boolean {
  return content.kind === 'forward'
    ? false
    : isAction(content) || CONTENT_WRITERS[content.kind]?.answer === 'whole'
}

/** A location or contact message as sent (JSON form), without the reply and mention details. */
function withoutContext(message: Record<string, unknown>): Record<string, unknown> {
  const shown: Record<string, unknown> = {}
  for (const [field, value] of Object.entries(message)) {
    const inner = record(value)
    if (field === 'messageContextInfo' || !inner) continue
    const { contextInfo: _context, ...rest } = inner
    shown[field] = rest
  }
  return shown
}

/**
 * The seed's answer for a sent message: its key, what its kind answers (a text as `extendedTextMessage`),
 * media with its safe fields only (in the protocol's JSON form: longs and bytes as strings), and the timestamp.
 */
function sentAnswer(
  key: SentAnswer['key'],
  message: Record<string, unknown>,
  messageTimestamp: string,
  content: WaOutgoingContent,
): SentAnswer {
  const answered = isAction(content) ? undefined : CONTENT_WRITERS[content.kind]?.answer
  if (typeof answered === 'function') {
    const shown = (answered as (content: WaOutgoingContent) => ProtocolContent)(content)
    return { key, message: shown, messageTimestamp }
  }
  const found = sentMedia(message)
  if (answeredWhole(content) || (content.kind === 'forward' && !found)) {
    return { key, message: withoutContext(message), messageTimestamp }
  }
  const safe: Record<string, unknown> = {}
  if (found) {
    for (const field of SAFE_MEDIA_FIELDS) if (found[1][field] !== undefined) safe[field] = found[1][field]
  } else {
    if ('mimetype' in content) safe.mimetype = content.mimetype
    if ('fileName' in content && content.fileName) safe.fileName = content.fileName
    if ('caption' in content && content.caption) safe.caption = content.caption
  }
  const field = found?.[0] ?? (typeof answered === 'object' ? answered.field : `${content.kind}Message`)
  const shown = { [field]: safe }
  // View-once media shows its wrapper, so the answer says what the recipient gets.
  const answer = message.viewOnceMessage ? { viewOnceMessage: { message: shown } } : shown
  return { key, message: answer, messageTimestamp }
}

/** A message Baileys sent, as the adapter reports it: its id and time, the seed's answer, and its content. */
export function mapSentMessage(
  sent: WAMessage & { message: proto.IMessage },
  to: string,
  content: WaOutgoingContent,
): WaSentMessage {
  const id = sent.key.id ?? ''
  const timestamp = timestampOf(sent.messageTimestamp) ?? String(Math.floor(Date.now() / 1000))
  const json = proto.Message.toObject(proto.Message.fromObject(sent.message), {
    longs: String,
    bytes: String,
    defaults: false,
  }) as Record<string, unknown>
  const key = { remoteJid: sent.key.remoteJid ?? to, fromMe: true as const, id }
  const normalized = normalizeMessageContent(sent.message) ?? sent.message
  return {
    id,
    timestamp,
    answer: sentAnswer(key, json, timestamp, content),
    shown: {
      ...contentOf(sent.message, normalized),
      ...(key.remoteJid === STATUS_BROADCAST && { status_look: statusLookOf(normalized) }),
    },
    content: proto.Message.encode(sent.message).finish(),
  }
}

/** Baileys' presence names, as the network reports them, onto Linkdesk's. */
const PRESENCES: Record<string, WaPresence> = {
  available: 'available',
  unavailable: 'unavailable',
  composing: 'composing',
  recording: 'recording',
  paused: 'paused',
}

/** A contact's presence changes (`presence.update`): one update per participant the network named. */
export function mapPresence(update: {
  id: string
  presences: Record<string, { lastKnownPresence?: string; lastSeen?: number }>
}): WaPresenceUpdate[] {
  return Object.entries(update.presences).flatMap(([participant, { lastKnownPresence, lastSeen }]) => {
    const presence = lastKnownPresence ? PRESENCES[lastKnownPresence] : undefined
    return presence ? [{ chat: update.id, participant, presence, lastSeen: lastSeen ?? null }] : []
  })
}

/** A call that starts ringing (Baileys' `call` event with status offer); other call updates are no news. */
export function mapCallOffer(call: {
  id: string
  from: string
  callerPn?: string
  status: string
  isVideo?: boolean
  isGroup?: boolean
  groupJid?: string
  offline: boolean
  date: Date
}): WaCallOffer | undefined {
  if (call.status !== 'offer') return undefined
  return {
    id: call.id,
    from: call.from,
    callerPhone: call.callerPn ?? (call.from.endsWith('@s.whatsapp.net') ? call.from : null),
    video: Boolean(call.isVideo),
    group: Boolean(call.isGroup),
    groupJid: call.groupJid ?? null,
    offline: call.offline,
    timestamp: Math.floor(call.date.getTime() / 1000),
  }
}
