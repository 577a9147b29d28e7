import { AppError } from '../errors'
import type { UploadedMedia } from '../contract/media'

const DATA_URL = /^data:([\w.+-]+\/[\w.+-]+)?(?:;[\w-]+=[^;,]*)*;base64,/i
const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/

/**
 * `media_base64`: standard base64 (whitespace ignored), or a `data:<type>;base64,` URL whose type then
 * refines the typing as a part's Content-Type does. Anything else is refused naming the field.
 */
export function decodeBase64Media(value: string): UploadedMedia {
  const prefix = DATA_URL.exec(value)
  const text = value.slice(prefix?.[0].length ?? 0).replace(/\s+/g, '')
  if (!BASE64.test(text) || text.length % 4 === 1) {
    throw new AppError(
      'invalid_parameter',
      'media_base64 must be base64 (or a data: URL with base64 content).',
      {
        details: { parameter: 'media_base64' },
      },
    )
  }
  return { data: Buffer.from(text, 'base64'), fileName: '', contentType: prefix?.[1] }
}
