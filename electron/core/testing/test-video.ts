import { execFile } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'

/** A real one-second MP4 (H.264 test pattern), made by the system's ffmpeg (an MP4's index needs a file). */
export async function testVideo(): Promise<Buffer> {
  const dir = mkdtempSync(join(tmpdir(), 'linkdesk-video-'))
  try {
    const file = join(dir, 'clip.mp4')
    await promisify(execFile)('ffmpeg', [
      ...['-nostdin', '-hide_banner', '-loglevel', 'error'],
      ...['-f', 'lavfi', '-i', 'testsrc=size=240x240:rate=10:duration=1'],
      ...['-pix_fmt', 'yuv420p', '-movflags', '+faststart', file],
    ])
    return readFileSync(file)
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}
