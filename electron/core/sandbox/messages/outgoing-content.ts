import type { proto } from '@whiskeysockets/baileys'
import { encryptMedia } from '../media/media-crypto'
import type { MediaStore } from '../media/media-store'
import type { MediaKind } from './inbox'

/** A message ready to be encrypted, with the stanza attributes its kind needs. */
export interface OutgoingContent {
  message: proto.IMessage
  stanzaType: 'text' | 'media'
  mediatype?: MediaKind
}

/** A file a simulated account sends. */
export interface SandboxMediaInput {
  data: Buffer
  mimetype: string
  filename?: string
  caption?: string
}

export function textContent(text: string): OutgoingContent {
  return { message: { conversation: text }, stanzaType: 'text' }
}

function kindFor(mimetype: string): MediaKind {
  if (mimetype.startsWith('image/')) return 'image'
  if (mimetype.startsWith('video/')) return 'video'
  if (mimetype.startsWith('audio/')) return 'audio'
  return 'document'
}

/** Encrypts and stores the file on the media host, as a phone uploads it, and builds the matching message. */
export function mediaContent(store: MediaStore, input: SandboxMediaInput): OutgoingContent {
  const kind = kindFor(input.mimetype)
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
  const caption = input.caption ? { caption: input.caption } : {}
  const message: proto.IMessage =
    kind === 'image'
      ? { imageMessage: { ...fields, ...caption } }
      : kind === 'video'
        ? { videoMessage: { ...fields, ...caption } }
        : kind === 'audio'
          ? { audioMessage: fields }
          : { documentMessage: { ...fields, ...caption, fileName: input.filename ?? 'file' } }
  return { message, stanzaType: 'media', mediatype: kind }
}
