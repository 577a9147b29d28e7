import assert from 'node:assert/strict'
import { mkdtemp, readdir } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { test } from 'node:test'
import audioDecode from 'audio-decode'
import { AppError } from '../../errors'
import { sineAudio } from '../../testing/sine-audio'
import { createVoiceNoteConverter, isOggOpus, VOICE_NOTE_MIMETYPE } from './voice-note-audio'

// Its own scratch parent, so that conversions in other test processes never look like leftovers.
const tempDir = await mkdtemp(join(tmpdir(), 'voice-note-test-'))
const converter = createVoiceNoteConverter({
  ffmpeg: 'ffmpeg',
  timeoutMs: 20_000,
  maxBytes: 16 * 1024 * 1024,
  tempDir,
})

async function rejectsWith(promise: Promise<unknown>, code: string, message: RegExp): Promise<AppError> {
  let caught: unknown
  await promise.catch((error: unknown) => (caught = error))
  assert.ok(caught instanceof AppError, `expected an AppError, got ${String(caught)}`)
  assert.equal(caught.code, code)
  assert.match(caught.message, message)
  return caught
}

async function leftoverTempDirs(): Promise<string[]> {
  return await readdir(tempDir)
}

for (const format of ['wav', 'mp3', 'ogg-vorbis'] as const) {
  test(`${format} audio becomes mono 48 kHz Ogg/Opus of the same length`, async () => {
    const source = await sineAudio(format, 1.5)
    assert.equal(isOggOpus(source), false)
    const note = await converter.toVoiceNote(source)
    assert.ok(isOggOpus(note))
    const decoded = await audioDecode(note)
    assert.equal(decoded.numberOfChannels, 1)
    assert.equal(decoded.sampleRate, 48_000)
    assert.ok(Math.abs(decoded.duration - 1.5) < 0.1, `duration ${decoded.duration}`)
    assert.deepEqual(await leftoverTempDirs(), [], 'the temporary input is removed')
  })
}

test('Ogg/Opus passes unchanged, without running ffmpeg', async () => {
  const source = await sineAudio('ogg-opus', 1)
  const noFfmpeg = createVoiceNoteConverter({
    ffmpeg: '/nonexistent/ffmpeg',
    timeoutMs: 1000,
    maxBytes: 1 << 20,
  })
  assert.equal(await noFfmpeg.toVoiceNote(source), source)
})

test('without ffmpeg, other audio is refused with 422 naming the accepted format', async () => {
  const noFfmpeg = createVoiceNoteConverter({
    ffmpeg: '/nonexistent/ffmpeg',
    timeoutMs: 1000,
    maxBytes: 1 << 20,
  })
  const error = await rejectsWith(
    noFfmpeg.toVoiceNote(await sineAudio('mp3', 1)),
    'media_unavailable',
    /Ogg\/Opus/,
  )
  assert.equal(error.status, 422)
  assert.match(error.message, /audio\/ogg; codecs=opus/)
  assert.deepEqual(error.details, { accepted: [VOICE_NOTE_MIMETYPE] })
})

test('a file that is not audio is refused with 422', async () => {
  const error = await rejectsWith(
    converter.toVoiceNote(Buffer.from('this is a text file, not a song\n'.repeat(50))),
    'media_unavailable',
    /not audio/,
  )
  assert.equal(error.status, 422)
})

test('a conversion past its time limit is killed and refused, leaving no temporary file', async () => {
  const slow = createVoiceNoteConverter({ ffmpeg: 'ffmpeg', timeoutMs: 30, maxBytes: 64 << 20, tempDir })
  await rejectsWith(slow.toVoiceNote(await sineAudio('wav', 120)), 'media_unavailable', /longer than 30 ms/)
  assert.deepEqual(await leftoverTempDirs(), [])
})

test('a converted file over the size limit is refused with 413', async () => {
  const small = createVoiceNoteConverter({ ffmpeg: 'ffmpeg', timeoutMs: 20_000, maxBytes: 2000 })
  const error = await rejectsWith(
    small.toVoiceNote(await sineAudio('wav', 5)),
    'payload_too_large',
    /2000 bytes/,
  )
  assert.equal(error.status, 413)
})
