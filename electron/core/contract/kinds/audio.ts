import { type KindModule, type MediaContent, mediaFacts, type ProtocolMedia } from './kind-module'

/** A sound: read from `audioMessage` (a voice note when `ptt`), sent from a `media` file whose content is audio. */
export const AUDIO_KIND: KindModule = {
  name: 'audio',
  reads: {
    audioMessage: {
      type: 'audio',
      holdsFile: true,
      read: (audio: ProtocolMedia & { ptt?: boolean | null }) => ({
        media: mediaFacts(audio, { seconds: audio.seconds, voice_note: audio.ptt }),
      }),
    },
  },
  writes: {
    audio: { write: ({ media, mimetype }: MediaContent<'audio'>) => ({ audio: media, mimetype }) },
  },
}
