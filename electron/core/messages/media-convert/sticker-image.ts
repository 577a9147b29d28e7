import sharp from 'sharp'
import { AppError } from '../../errors'

const SIDE = 512
/** WhatsApp refuses static stickers above 100 KB. */
const MAX_STICKER_BYTES = 100 * 1024
/** Qualities tried in turn until the sticker fits. */
const QUALITIES = [80, 60, 40, 20]
/** Decoding bombs are refused before sharp allocates them (about a 8000×8000 image). */
const MAX_INPUT_PIXELS = 64_000_000

function notAnImage(cause: unknown): AppError {
  return new AppError(
    'media_unavailable',
    'The sticker is not an image (PNG, JPEG, WebP, GIF, AVIF or TIFF).',
    {
      cause,
    },
  )
}

/**
 * A sticker as WhatsApp shows it: a 512×512 WebP. A WebP of that size passes unchanged (animated ones
 * too); any other image is scaled to fit, centred on a transparent square, first frame only.
 */
export async function toSticker(image: Buffer): Promise<Buffer> {
  const options = { limitInputPixels: MAX_INPUT_PIXELS, failOn: 'error' } as const
  const metadata = await sharp(image, options)
    .metadata()
    .catch((error: unknown) => {
      throw notAnImage(error)
    })
  if (
    metadata.format === 'webp' &&
    metadata.width === SIDE &&
    (metadata.pageHeight ?? metadata.height) === SIDE
  )
    return image
  const square = sharp(image, options)
    .rotate()
    .resize(SIDE, SIDE, { fit: 'contain', background: { r: 0, g: 0, b: 0, alpha: 0 } })
  try {
    for (const quality of QUALITIES) {
      const sticker = await square.clone().webp({ quality }).toBuffer()
      if (sticker.length <= MAX_STICKER_BYTES) return sticker
    }
  } catch (error) {
    throw notAnImage(error)
  }
  throw new AppError(
    'payload_too_large',
    `The sticker does not fit in ${MAX_STICKER_BYTES / 1024} KB as a WebP.`,
  )
}
