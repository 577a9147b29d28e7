import { type KindModule, mediaFacts, type ProtocolMedia } from './kind-module'
import { composerFile, sandboxFile } from './file-fields'

/** A 512×512 WebP. */
export interface StickerContent {
  kind: 'sticker'
  media: Buffer
}

/** A sticker (`type=sticker`): any image, made a 512×512 WebP; read from `stickerMessage`. */
export const STICKER_KIND: KindModule = {
  name: 'sticker',
  reads: {
    stickerMessage: {
      type: 'sticker',
      holdsFile: true,
      read: (sticker: ProtocolMedia) => ({ media: mediaFacts(sticker) }),
    },
  },
  writes: { sticker: { write: ({ media }: StickerContent) => ({ sticker: media }) } },
  send: {
    type: 'sticker',
    example: {
      summary: 'A sticker (any image, converted)',
      params: { type: 'sticker', media_url: 'https://example.com/smile.png' },
    },
    file: true,
    fields: {},
    async build(_params, { file, notA, toSquareWebp }): Promise<StickerContent> {
      const image = await file()
      if (image.kind !== 'image') throw notA('an image', image.mimetype)
      return { kind: 'sticker', media: await toSquareWebp(image.data) }
    },
  },
  forms: {
    composer: { kind: 'sticker', label: 'Sticker', fields: [composerFile()] },
    sandbox: {
      kind: 'sticker',
      label: 'Sticker',
      fields: [sandboxFile()],
      constants: { media_as: 'sticker' },
    },
  },
}
