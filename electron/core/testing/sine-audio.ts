import { execFile } from 'node:child_process'
import { promisify } from 'node:util'

const run = promisify(execFile)

const FORMATS = {
  wav: ['-f', 'wav'],
  mp3: ['-c:a', 'libmp3lame', '-f', 'mp3'],
  'ogg-opus': ['-c:a', 'libopus', '-f', 'ogg'],
  'ogg-vorbis': ['-c:a', 'libvorbis', '-f', 'ogg'],
} as const

/** A real audio file of a 440 Hz tone, then `silence` seconds of nothing, made by the system's ffmpeg. */
export async function sineAudio(format: keyof typeof FORMATS, seconds: number, silence = 0): Promise<Buffer> {
  const { stdout } = await run(
    'ffmpeg',
    [
      ...['-nostdin', '-hide_banner', '-loglevel', 'error'],
      ...['-f', 'lavfi', '-i', `sine=frequency=440:duration=${seconds}`],
      ...(silence ? ['-af', `apad=pad_dur=${silence}`] : []),
      ...FORMATS[format],
      'pipe:1',
    ],
    { encoding: 'buffer', maxBuffer: 64 * 1024 * 1024 },
  )
  return stdout
}
