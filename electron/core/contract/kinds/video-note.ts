import { type KindModule, mediaFacts, type ProtocolMedia } from './kind-module'
import { composerFile, sandboxFile } from './file-fields'

/** A round video note. */
export interface VideoNoteContent {
  kind: 'video_note'
  media: Buffer
  mimetype: string
}

/** A round video note (`type=video_note`): read from `ptvMessage` as a video. */
export const VIDEO_NOTE_KIND: KindModule = {
  name: 'video_note',
  reads: {
    ptvMessage: {
      type: 'video',
      holdsFile: true,
      read: (video: ProtocolMedia) => ({
        media: mediaFacts(video, { seconds: video.seconds, video_note: true }),
      }),
    },
  },
  writes: {
    video_note: {
      write: ({ media, mimetype }: VideoNoteContent) => ({ video: media, mimetype, ptv: true }),
      answer: { field: 'ptvMessage' },
    },
  },
  send: {
    type: 'video_note',
    example: {
      summary: 'A round video note',
      params: { type: 'video_note', media_url: 'https://example.com/hello.mp4' },
    },
    file: true,
    fields: {},
    async build(_params, { file, notA }): Promise<VideoNoteContent> {
      const video = await file()
      if (video.kind !== 'video') throw notA('a video', video.mimetype)
      return { kind: 'video_note', media: video.data, mimetype: video.mimetype }
    },
  },
  forms: {
    composer: { kind: 'video_note', label: 'Video note', fields: [composerFile()] },
    sandbox: {
      kind: 'video_note',
      label: 'Video note',
      fields: [sandboxFile()],
      constants: { media_as: 'video_note' },
    },
  },
  summary: { shows: 'note', flag: 'video_note', label: 'video note' },
}
