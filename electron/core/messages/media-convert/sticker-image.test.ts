import assert from 'node:assert/strict'
import { test } from 'node:test'
import sharp from 'sharp'
import { AppError } from '../../errors'
import { toSticker } from './sticker-image'

const png = (width: number, height: number): Promise<Buffer> =>
  sharp({ create: { width, height, channels: 3, background: { r: 200, g: 30, b: 30 } } })
    .png()
    .toBuffer()

test('a wide PNG becomes a 512×512 WebP, scaled to fit on a transparent square', async () => {
  const sticker = await toSticker(await png(300, 100))
  const metadata = await sharp(sticker).metadata()
  assert.equal(metadata.format, 'webp')
  assert.equal(metadata.width, 512)
  assert.equal(metadata.height, 512)
  assert.equal(metadata.hasAlpha, true)
  const { data } = await sharp(sticker).ensureAlpha().raw().toBuffer({ resolveWithObject: true })
  const alphaAt = (x: number, y: number): number => data[(y * 512 + x) * 4 + 3] ?? -1
  assert.equal(alphaAt(256, 5), 0, 'the padding above the image is transparent')
  assert.equal(alphaAt(256, 256), 255, 'the image itself is opaque')
  assert.ok(sticker.length <= 100 * 1024)
})

test('a JPEG becomes a 512×512 WebP too', async () => {
  const jpeg = await sharp({ create: { width: 64, height: 900, channels: 3, background: '#3366cc' } })
    .jpeg()
    .toBuffer()
  const metadata = await sharp(await toSticker(jpeg)).metadata()
  assert.deepEqual([metadata.format, metadata.width, metadata.height], ['webp', 512, 512])
})

test('a 512×512 WebP passes unchanged', async () => {
  const ready = await sharp(await png(512, 512))
    .webp()
    .toBuffer()
  assert.equal(await toSticker(ready), ready)
})

test('a file that is not an image is refused with 422', async () => {
  let caught: unknown
  await toSticker(Buffer.from('definitely not an image')).catch((error: unknown) => (caught = error))
  assert.ok(caught instanceof AppError)
  assert.equal(caught.code, 'media_unavailable')
  assert.equal(caught.status, 422)
  assert.match(caught.message, /not an image/)
})
