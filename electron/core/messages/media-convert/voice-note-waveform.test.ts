import assert from 'node:assert/strict'
import { createHash } from 'node:crypto'
import { test } from 'node:test'
import { inboxEntry, linkedDeviceFixture } from '@linkdesk/sandbox/testing'
import { sineAudio } from '../../testing/sine-audio'
import { createVoiceNoteConverter, VOICE_NOTE_MIMETYPE } from './voice-note-audio'

const ME = '15550001111'
const ALICE = '15551230001'

const fixture = linkedDeviceFixture(ME, [{ phone: ALICE, name: 'Alice' }])

test('Baileys sends a converted voice note with its duration and a waveform drawn from the sound', async () => {
  const converter = createVoiceNoteConverter({ ffmpeg: 'ffmpeg', timeoutMs: 20_000, maxBytes: 1 << 24 })
  // One second of tone, then one of silence: the waveform must be high, then flat.
  const note = await converter.toVoiceNote(await sineAudio('mp3', 1, 1))
  assert.ok(fixture.device.sock)
  const sent = await fixture.device.sock.sendMessage(`${ALICE}@s.whatsapp.net`, {
    audio: note,
    ptt: true,
    mimetype: VOICE_NOTE_MIMETYPE,
  })
  const entry = await inboxEntry(fixture.sandbox, ALICE, sent?.key.id ?? '')
  assert.equal(entry.ptt, true)
  assert.equal(entry.mimetype, VOICE_NOTE_MIMETYPE)
  assert.equal(entry.sha256, createHash('sha256').update(note).digest('hex'))
  assert.equal(entry.seconds, 2)
  const waveform = entry.waveform ?? []
  assert.equal(waveform.length, 64, 'audio-decode is there, so Baileys computed the waveform')
  assert.equal(Math.max(...waveform), 100)
  const [tone, silence] = [waveform.slice(2, 28), waveform.slice(36, 62)]
  assert.ok(Math.min(...tone) > 50, `the tone is loud: ${tone.join(',')}`)
  assert.ok(Math.max(...silence) < 5, `the silence is flat: ${silence.join(',')}`)
})
