import { type KindModule, type MediaContent, mediaFacts, type ProtocolMedia } from './kind-module'

/** A picture: read from `imageMessage`, sent from a `media` file whose content is an image. */
export const IMAGE_KIND: KindModule = {
  name: 'image',
  reads: {
    imageMessage: {
      type: 'image',
      holdsFile: true,
      read: (image: ProtocolMedia) => ({ caption: image.caption, media: mediaFacts(image) }),
    },
  },
  writes: {
    image: {
      write: ({ media, caption, mimetype, viewOnce }: MediaContent<'image'>) => ({
        image: media,
        caption,
        mimetype,
        ...(viewOnce ? { viewOnce } : {}),
      }),
    },
  },
}
