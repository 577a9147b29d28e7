import { type KindModule, type MediaContent, mediaFacts, type ProtocolMedia } from './kind-module'

/** A video: read from `videoMessage`, sent from a `media` file whose content is a video. */
export const VIDEO_KIND: KindModule = {
  name: 'video',
  reads: {
    videoMessage: {
      type: 'video',
      holdsFile: true,
      read: (video: ProtocolMedia) => ({
        caption: video.caption,
        media: mediaFacts(video, { seconds: video.seconds }),
      }),
    },
  },
  writes: {
    video: {
      write: ({ media, caption, mimetype, viewOnce }: MediaContent<'video'>) => ({
        video: media,
        caption,
        mimetype,
        ...(viewOnce ? { viewOnce } : {}),
      }),
    },
  },
}
