import type { WaOutgoingContent, WaSentMessage } from '../wa/wa-types'

/** The seed's sent-message result: the `message` field of a successful send_message answer. */
export interface SentAnswer {
  key: { remoteJid: string; fromMe: true; id: string }
  message: Record<string, unknown>
  /** Unix seconds, as a string. */
  messageTimestamp: string
}

const MEDIA_MESSAGES = ['imageMessage', 'videoMessage', 'audioMessage', 'documentMessage'] as const

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

/** The media message inside the sent content, unwrapping a captioned document. */
function mediaMessage(message: Record<string, unknown>): [string, Record<string, unknown>] | undefined {
  const wrapped = record(record(message.documentWithCaptionMessage)?.message)
  for (const source of [message, wrapped]) {
    if (!source) continue
    for (const name of MEDIA_MESSAGES) {
      const media = record(source[name])
      if (media) return [name, media]
    }
  }
  return undefined
}

/** Builds the answer for a sent message: text as `extendedTextMessage`, media with its safe fields only. */
export function sentAnswer(sent: WaSentMessage, content: WaOutgoingContent): SentAnswer {
  const key = { remoteJid: sent.key.remoteJid, fromMe: true as const, id: sent.key.id }
  if (content.kind === 'text') {
    return {
      key,
      message: { extendedTextMessage: { text: content.text } },
      messageTimestamp: sent.messageTimestamp,
    }
  }
  const found = mediaMessage(sent.message)
  const safe: Record<string, unknown> = {}
  if (found) {
    for (const field of SAFE_MEDIA_FIELDS) if (found[1][field] !== undefined) safe[field] = found[1][field]
  } else {
    safe.mimetype = content.mimetype
    if (content.fileName) safe.fileName = content.fileName
    if (content.caption) safe.caption = content.caption
  }
  return {
    key,
    message: { [found?.[0] ?? `${content.kind}Message`]: safe },
    messageTimestamp: sent.messageTimestamp,
  }
}
