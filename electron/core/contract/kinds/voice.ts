import type { KindModule } from './kind-module'
import { composerFile, sandboxFile } from './file-fields'

/** Push-to-talk Ogg/Opus: the network computes nothing, the network library adds the length and waveform. */
export interface VoiceContent {
  kind: 'voice'
  media: Buffer
  mimetype: string
}

/** A voice note (`type=voice`): any audio (or a video's sound) made the Ogg/Opus the apps record; read as audio. */
export const VOICE_KIND: KindModule = {
  name: 'voice',
  writes: {
    // No seconds: the network library then reads the length from the file, and only on that path draws the waveform.
    voice: {
      write: ({ media, mimetype }: VoiceContent) => ({ audio: media, mimetype, ptt: true }),
      answer: { field: 'audioMessage' },
    },
  },
  send: {
    type: 'voice',
    example: {
      summary: 'A voice note',
      params: { type: 'voice', media_url: 'https://example.com/note.ogg' },
    },
    file: true,
    fields: {},
    async build(_params, { file, notA, toOggOpus }): Promise<VoiceContent> {
      const audio = await file()
      // A video's sound track makes a voice note too; anything else is not worth handing to ffmpeg.
      if (audio.kind !== 'audio' && audio.kind !== 'video') throw notA('audio', audio.mimetype)
      return { kind: 'voice', ...(await toOggOpus(audio.data)) }
    },
  },
  forms: {
    composer: { kind: 'voice', label: 'Voice note', fields: [composerFile({ record: true })] },
    sandbox: {
      kind: 'voice_note',
      label: 'Voice note',
      fields: [sandboxFile('A voice note is Ogg/Opus audio, as the apps record it.')],
      constants: { media_as: 'voice_note' },
    },
  },
  summary: { shows: 'note', flag: 'voice_note', label: 'voice note' },
}
