import type { MediaKind } from '../contract/message'

export type { MediaKind }

/** What the content is, by its first bytes. */
export interface SniffedType {
  mimetype: string
  kind: MediaKind
  extension: string
}

function startsWith(bytes: Uint8Array, signature: readonly number[], offset = 0): boolean {
  if (bytes.length < offset + signature.length) return false
  return signature.every((byte, index) => bytes[offset + index] === byte)
}

function ascii(bytes: Uint8Array, start: number, end: number): string {
  return Buffer.from(bytes.subarray(start, end)).toString('latin1')
}

function sniffIsoMedia(bytes: Uint8Array): SniffedType | undefined {
  if (ascii(bytes, 4, 8) !== 'ftyp') return undefined
  const brand = ascii(bytes, 8, 12)
  if (brand === 'M4A ' || brand === 'M4B ') return { mimetype: 'audio/mp4', kind: 'audio', extension: 'm4a' }
  if (brand === 'qt  ') return { mimetype: 'video/quicktime', kind: 'video', extension: 'mov' }
  if (brand.startsWith('3gp')) return { mimetype: 'video/3gpp', kind: 'video', extension: '3gp' }
  if (brand === 'heic' || brand === 'heix' || brand === 'mif1') {
    // WhatsApp does not show HEIC pictures inline: send them as files.
    return { mimetype: 'image/heic', kind: 'document', extension: 'heic' }
  }
  return { mimetype: 'video/mp4', kind: 'video', extension: 'mp4' }
}

/** Recognises the common media and document formats from their magic bytes; undefined when unknown. */
export function sniffMediaType(bytes: Uint8Array): SniffedType | undefined {
  if (startsWith(bytes, [0xff, 0xd8, 0xff]))
    return { mimetype: 'image/jpeg', kind: 'image', extension: 'jpg' }
  if (startsWith(bytes, [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])) {
    return { mimetype: 'image/png', kind: 'image', extension: 'png' }
  }
  if (ascii(bytes, 0, 4) === 'GIF8') return { mimetype: 'image/gif', kind: 'image', extension: 'gif' }
  if (ascii(bytes, 0, 4) === 'RIFF' && ascii(bytes, 8, 12) === 'WEBP') {
    return { mimetype: 'image/webp', kind: 'image', extension: 'webp' }
  }
  if (ascii(bytes, 0, 4) === 'RIFF' && ascii(bytes, 8, 12) === 'WAVE') {
    return { mimetype: 'audio/wav', kind: 'audio', extension: 'wav' }
  }
  const iso = sniffIsoMedia(bytes)
  if (iso) return iso
  if (startsWith(bytes, [0x1a, 0x45, 0xdf, 0xa3]))
    return { mimetype: 'video/webm', kind: 'video', extension: 'webm' }
  if (ascii(bytes, 0, 4) === 'OggS') {
    const opus = ascii(bytes, 0, Math.min(bytes.length, 64)).includes('OpusHead')
    return { mimetype: opus ? 'audio/ogg; codecs=opus' : 'audio/ogg', kind: 'audio', extension: 'ogg' }
  }
  if (ascii(bytes, 0, 3) === 'ID3') return { mimetype: 'audio/mpeg', kind: 'audio', extension: 'mp3' }
  if (startsWith(bytes, [0xff]) && bytes.length > 1) {
    const second = bytes[1] ?? 0
    if ((second & 0xf6) === 0xf0) return { mimetype: 'audio/aac', kind: 'audio', extension: 'aac' }
    if ((second & 0xe0) === 0xe0) return { mimetype: 'audio/mpeg', kind: 'audio', extension: 'mp3' }
  }
  if (ascii(bytes, 0, 6) === '#!AMR\n') return { mimetype: 'audio/amr', kind: 'audio', extension: 'amr' }
  if (ascii(bytes, 0, 5) === '%PDF-')
    return { mimetype: 'application/pdf', kind: 'document', extension: 'pdf' }
  if (startsWith(bytes, [0x50, 0x4b, 0x03, 0x04])) {
    return { mimetype: 'application/zip', kind: 'document', extension: 'zip' }
  }
  if (startsWith(bytes, [0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1])) {
    return { mimetype: 'application/x-ole-storage', kind: 'document', extension: 'doc' }
  }
  return undefined
}

/** Declared types that may be sent as documents although their bytes have no signature (text formats). */
const TEXT_DOCUMENTS: Record<string, string> = {
  'text/plain': 'txt',
  'text/csv': 'csv',
  'text/calendar': 'ics',
  'text/vcard': 'vcf',
  'text/x-vcard': 'vcf',
  'application/json': 'json',
  'application/xml': 'xml',
  'text/xml': 'xml',
  'application/rtf': 'rtf',
}

/** The media type without parameters, lower case: `Text/Plain; charset=utf-8` → `text/plain`. */
export function essence(contentType: string | undefined | null): string | undefined {
  const value = contentType?.split(';')[0]?.trim().toLowerCase()
  return value ? value : undefined
}

/** A text format declared by the server that can be sent as a document; undefined otherwise. */
export function textDocumentType(contentType: string | undefined): SniffedType | undefined {
  const type = essence(contentType)
  const extension = type ? TEXT_DOCUMENTS[type] : undefined
  return type && extension ? { mimetype: type, kind: 'document', extension } : undefined
}

/**
 * The declared type when the bytes are a container that several formats share (zip for docx/xlsx/odt,
 * OLE for doc/xls) and the server named the precise one.
 */
export function refineContainerType(sniffed: SniffedType, contentType: string | undefined): SniffedType {
  const declared = essence(contentType)
  if (!declared || sniffed.kind !== 'document') return sniffed
  const container = sniffed.mimetype === 'application/zip' || sniffed.mimetype === 'application/x-ole-storage'
  if (container && declared.startsWith('application/') && declared !== 'application/octet-stream') {
    return { ...sniffed, mimetype: declared }
  }
  return sniffed
}
