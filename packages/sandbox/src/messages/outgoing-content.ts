import type { proto } from '@whiskeysockets/baileys'
import { contactCardVcard } from '../protocol/contact-card'
import { encryptMedia } from '../media/media-crypto'
import type { MediaStore } from '../media/media-store'
import type { PhoneMediaCopy } from '../media/phone-media'
import type { MediaKind } from './inbox'

/** A message ready to be encrypted, with the stanza attributes its kind needs (as Baileys sets them). */
export interface OutgoingContent {
  message: proto.IMessage
  /** The stanza's `type`: Baileys tags reactions `reaction`, files `media`, the rest `text`. */
  stanzaType: 'text' | 'media' | 'reaction'
  /** The `mediatype` attribute of the `<enc>` node. */
  mediatype?: string
  /** A file's encrypted bytes and media key, which the sending phone keeps (and its recipients' phones get). */
  file?: PhoneMediaCopy
}

export const MEDIA_PRESENTATIONS = ['voice_note', 'video_note', 'sticker'] as const

/** How a file is shown: by its mimetype (default), or as a voice note, a round video note or a sticker. */
export type SandboxMediaPresentation = (typeof MEDIA_PRESENTATIONS)[number]

/** A file a simulated account sends. */
export interface SandboxMediaInput {
  data: Buffer
  mimetype: string
  filename?: string
  caption?: string
  as?: SandboxMediaPresentation
  /** Playing time stated in the message (voice and video notes, audio, video). */
  seconds?: number
  /** Image or video that may be opened once. */
  viewOnce?: boolean
}

export interface SandboxLocationInput {
  latitude: number
  longitude: number
  name?: string
  address?: string
}

export interface SandboxContactInput {
  name: string
  phone: string
}

export interface SandboxLinkPreviewInput {
  url: string
  title: string
  description?: string
}

/** What every kind can carry: the message it quotes and the accounts it mentions. */
export interface MessageContext {
  quoted?: { id: string; participant: string; message: proto.IMessage | undefined }
  /** JIDs. */
  mentions?: string[]
}

function contextInfo(context: MessageContext): proto.IContextInfo | undefined {
  const info: proto.IContextInfo = {}
  if (context.quoted) {
    info.stanzaId = context.quoted.id
    info.participant = context.quoted.participant
    if (context.quoted.message) info.quotedMessage = context.quoted.message
  }
  if (context.mentions?.length) info.mentionedJid = context.mentions
  return Object.keys(info).length ? info : undefined
}

export function textContent(
  text: string,
  context: MessageContext = {},
  preview?: SandboxLinkPreviewInput,
): OutgoingContent {
  const info = contextInfo(context)
  if (!info && !preview) return { message: { conversation: text }, stanzaType: 'text' }
  const previewFields = preview
    ? { matchedText: preview.url, title: preview.title, description: preview.description, previewType: 0 }
    : {}
  return {
    message: { extendedTextMessage: { text, ...previewFields, contextInfo: info } },
    stanzaType: 'text',
  }
}

function kindFor(input: SandboxMediaInput): MediaKind {
  if (input.as === 'sticker') return 'sticker'
  if (input.as === 'voice_note') return 'audio'
  if (input.as === 'video_note') return 'video'
  if (input.mimetype.startsWith('image/')) return 'image'
  if (input.mimetype.startsWith('video/')) return 'video'
  if (input.mimetype.startsWith('audio/')) return 'audio'
  return 'document'
}

/** The message for an uploaded file, and the `mediatype` WhatsApp tags its stanza with. */
function mediaMessage(
  kind: MediaKind,
  input: SandboxMediaInput,
  fields: Record<string, unknown>,
): { message: proto.IMessage; mediatype: string } {
  const caption = input.caption ? { caption: input.caption } : {}
  const seconds = input.seconds === undefined ? {} : { seconds: input.seconds }
  const viewOnce = input.viewOnce ? { viewOnce: true } : {}
  switch (kind) {
    case 'image':
      return { message: { imageMessage: { ...fields, ...caption, ...viewOnce } }, mediatype: 'image' }
    case 'video':
      return input.as === 'video_note'
        ? { message: { ptvMessage: { ...fields, ...seconds } }, mediatype: 'video' }
        : {
            message: { videoMessage: { ...fields, ...caption, ...seconds, ...viewOnce } },
            mediatype: 'video',
          }
    case 'audio': {
      const ptt = input.as === 'voice_note'
      return { message: { audioMessage: { ...fields, ...seconds, ptt } }, mediatype: ptt ? 'ptt' : 'audio' }
    }
    case 'sticker':
      return { message: { stickerMessage: fields }, mediatype: 'sticker' }
    case 'document':
      return {
        message: { documentMessage: { ...fields, ...caption, fileName: input.filename ?? 'file' } },
        mediatype: 'document',
      }
    default: {
      const unreachable: never = kind
      throw new Error(`unknown media kind ${String(unreachable)}`)
    }
  }
}

/** Sets the quote and mentions on the message's one content field. */
function withContext(message: proto.IMessage, context: MessageContext): proto.IMessage {
  const info = contextInfo(context)
  if (!info) return message
  const [field, content] = Object.entries(message)[0] as [keyof proto.IMessage, object]
  return { [field]: { ...content, contextInfo: info } }
}

/** Encrypts and stores the file on the media host, as a phone uploads it, and builds the matching message. */
export function mediaContent(
  store: MediaStore,
  input: SandboxMediaInput,
  context: MessageContext = {},
): OutgoingContent {
  const kind = kindFor(input)
  const encrypted = encryptMedia(input.data, kind)
  const { directPath, url } = store.put(encrypted.file)
  const fields = {
    url,
    directPath,
    mediaKey: encrypted.mediaKey,
    fileEncSha256: encrypted.fileEncSha256,
    fileSha256: encrypted.fileSha256,
    fileLength: input.data.length,
    mimetype: input.mimetype,
    mediaKeyTimestamp: Math.floor(Date.now() / 1000),
  }
  const { message, mediatype } = mediaMessage(kind, input, fields)
  const inner = withContext(message, context)
  // View-once media travels wrapped, as the apps send it.
  const wrapped = input.viewOnce ? { viewOnceMessageV2: { message: inner } } : inner
  const file = { file: encrypted.file, mediaKey: encrypted.mediaKey }
  return { message: wrapped, stanzaType: 'media', mediatype, file }
}

export function locationContent(
  location: SandboxLocationInput,
  context: MessageContext = {},
): OutgoingContent {
  const message = {
    locationMessage: {
      degreesLatitude: location.latitude,
      degreesLongitude: location.longitude,
      name: location.name,
      address: location.address,
    },
  }
  return { message: withContext(message, context), stanzaType: 'text' }
}

/** One card as a contact message, several as a contact list, each a vCard 3.0 as the apps write it. */
export function contactsContent(
  contacts: SandboxContactInput[],
  context: MessageContext = {},
): OutgoingContent {
  const cards = contacts.map((contact) => ({ displayName: contact.name, vcard: contactCardVcard(contact) }))
  const [only] = cards
  if (cards.length === 1 && only) {
    return {
      message: withContext({ contactMessage: only }, context),
      stanzaType: 'media',
      mediatype: 'vcard',
    }
  }
  const message = { contactsArrayMessage: { displayName: `${cards.length} contacts`, contacts: cards } }
  return { message: withContext(message, context), stanzaType: 'media', mediatype: 'contact_array' }
}
