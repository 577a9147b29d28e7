import { type KindModule, type MediaContent, mediaFacts, type ProtocolMedia } from './kind-module'

/** A file with a name: read from `documentMessage`, sent from a `media` file that is no picture, video or sound. */
export const DOCUMENT_KIND: KindModule = {
  name: 'document',
  reads: {
    documentMessage: {
      type: 'document',
      holdsFile: true,
      read: (document: ProtocolMedia & { fileName?: string | null }) => ({
        caption: document.caption,
        media: mediaFacts(document, { filename: document.fileName }),
      }),
    },
  },
  writes: {
    document: {
      write: ({ media, mimetype, fileName, caption }: MediaContent<'document'>) => ({
        document: media,
        mimetype: mimetype ?? 'application/octet-stream',
        fileName,
        caption,
      }),
    },
  },
}
