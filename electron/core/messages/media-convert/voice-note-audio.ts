import { spawn } from 'node:child_process'
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { AppError } from '../../errors'

/** The one audio format WhatsApp plays as a voice note. */
export const VOICE_NOTE_MIMETYPE = 'audio/ogg; codecs=opus'

export interface VoiceNoteConverterOptions {
  /** The ffmpeg program: a path, or a name the system looks up on PATH. */
  ffmpeg: string
  /** Longest a conversion may run before it is killed. */
  timeoutMs: number
  /** Largest converted file accepted (the media limit). */
  maxBytes: number
  /** Where each conversion's scratch directory is made and removed again; the system's by default. */
  tempDir?: string
}

/** Turns any audio into the Ogg/Opus a voice note needs. */
export interface VoiceNoteConverter {
  toVoiceNote(audio: Buffer): Promise<Buffer>
}

/** Ogg's first page carries the codec's identification header: "OpusHead" for Opus. */
export function isOggOpus(audio: Buffer): boolean {
  if (audio.length < 28 || audio.toString('latin1', 0, 4) !== 'OggS') return false
  const packetStart = 27 + (audio[26] ?? 0)
  return audio.toString('latin1', packetStart, packetStart + 8) === 'OpusHead'
}

// Mono 48 kHz Opus at a speech bitrate, as the apps record voice notes; no metadata or cover art.
const OPUS_ARGUMENTS = [
  ...['-vn', '-map_metadata', '-1', '-ac', '1', '-ar', '48000'],
  ...['-c:a', 'libopus', '-b:a', '32k', '-application', 'voip', '-f', 'ogg', 'pipe:1'],
]

function missingFfmpeg(ffmpeg: string): AppError {
  return new AppError(
    'media_unavailable',
    `Voice notes are sent as Ogg/Opus (${VOICE_NOTE_MIMETYPE}); other audio needs ffmpeg to convert it, ` +
      `and "${ffmpeg}" was not found. Send Ogg/Opus audio, or install ffmpeg.`,
    { details: { accepted: [VOICE_NOTE_MIMETYPE] } },
  )
}

/**
 * Runs ffmpeg (arguments, never a shell) on a file, collecting what it writes to stdout up to maxBytes.
 * It is killed past the time or the size limit.
 */
function runFfmpeg(options: VoiceNoteConverterOptions, input: string): Promise<Buffer> {
  const args = ['-nostdin', '-hide_banner', '-loglevel', 'error', '-i', input, ...OPUS_ARGUMENTS]
  return new Promise((resolve, reject) => {
    const child = spawn(options.ffmpeg, args, { stdio: ['ignore', 'pipe', 'pipe'], shell: false })
    const chunks: Buffer[] = []
    let size = 0
    let stderr = ''
    let failure: AppError | undefined
    const stop = (error: AppError): void => {
      failure ??= error
      child.kill('SIGKILL')
    }
    const timer = setTimeout(
      () =>
        stop(
          new AppError('media_unavailable', `Converting the audio took longer than ${options.timeoutMs} ms.`),
        ),
      options.timeoutMs,
    )
    child.stdout.on('data', (chunk: Buffer) => {
      size += chunk.length
      if (size > options.maxBytes) {
        stop(
          new AppError(
            'payload_too_large',
            `The converted voice note is larger than ${options.maxBytes} bytes.`,
          ),
        )
        return
      }
      chunks.push(chunk)
    })
    child.stderr.on('data', (chunk: Buffer) => {
      if (stderr.length < 2000) stderr += chunk.toString('utf8')
    })
    child.on('error', (error: NodeJS.ErrnoException) => {
      clearTimeout(timer)
      reject(error.code === 'ENOENT' || error.code === 'EACCES' ? missingFfmpeg(options.ffmpeg) : error)
    })
    child.on('close', (code) => {
      clearTimeout(timer)
      if (failure) return reject(failure)
      if (code === 0 && size > 0) return resolve(Buffer.concat(chunks))
      reject(
        new AppError('media_unavailable', 'The file is not audio that ffmpeg can read.', {
          details: { ffmpeg: stderr.trim().split('\n').slice(-3).join('\n') },
        }),
      )
    })
  })
}

/**
 * Voice notes through the system's ffmpeg. Ogg/Opus passes unchanged (no ffmpeg needed); anything else
 * is written to a private temporary file (so formats that need seeking, like MP4 audio, work) and converted.
 */
export function createVoiceNoteConverter(options: VoiceNoteConverterOptions): VoiceNoteConverter {
  return {
    async toVoiceNote(audio) {
      if (isOggOpus(audio)) return audio
      const dir = await mkdtemp(join(options.tempDir ?? tmpdir(), 'linkdesk-audio-'))
      try {
        const input = join(dir, 'input')
        await writeFile(input, audio, { mode: 0o600 })
        return await runFfmpeg(options, input)
      } finally {
        await rm(dir, { recursive: true, force: true })
      }
    },
  }
}
