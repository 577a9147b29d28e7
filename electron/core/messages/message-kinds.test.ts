import assert from 'node:assert/strict'
import { rmSync } from 'node:fs'
import { after, before, describe, test } from 'node:test'
import type { Core } from '../index'
import { call, startCore, tempDataDir } from '../instances/testing/instance-harness'
import { sineAudio } from './media-convert/testing/sine-audio'
import { createVoiceNoteConverter, VOICE_NOTE_MIMETYPE } from './media-convert/voice-note-audio'
import { linkedInstance, recordEvents, sha256, TOKEN } from './testing/messaging-harness'

const ME = '15550400001'
const ALICE = '15550400002'

let core: Core
let dataDir: string
let instanceId: string
let events: ReturnType<typeof recordEvents>

before(async () => {
  dataDir = tempDataDir()
  core = await startCore({ dataDir, sandbox: true, limits: { sendIntervalMs: 0, sendJitterMs: 0 } })
  events = recordEvents(core)
  await core.sandbox!.control.addAccount({ phone: ALICE, name: 'Alice' })
  instanceId = await linkedInstance(core, ME)
})

after(async () => {
  await core.close()
  rmSync(dataDir, { recursive: true, force: true })
})

const control = () => core.sandbox!.control

function received(id: string, what: string) {
  return events.waitFor((e) => e.event === 'message.received' && e.data.id === id, what)
}

describe('receiving', () => {
  test('a voice note becomes message.received with voice_note, seconds and a download URL for its bytes', async () => {
    const converter = createVoiceNoteConverter({ ffmpeg: 'ffmpeg', timeoutMs: 20_000, maxBytes: 1 << 24 })
    const note = await converter.toVoiceNote(await sineAudio('wav', 2))
    const { id } = await control().send(ALICE, {
      to: ME,
      media: { data: note, mimetype: VOICE_NOTE_MIMETYPE, as: 'voice_note', seconds: 2 },
    })
    const event = await received(id, 'voice note')
    assert.equal(event.instance_id, instanceId)
    assert.equal(event.data.type, 'audio')
    const media = event.data.media as Record<string, unknown>
    assert.equal(media.voice_note, true)
    assert.equal(media.seconds, 2)
    assert.equal(media.mimetype, VOICE_NOTE_MIMETYPE)
    assert.equal(media.sha256, sha256(note))
    const download = await fetch(String(media.download_url), {
      headers: { authorization: `Bearer ${TOKEN}` },
    })
    assert.equal(download.status, 200)
    assert.equal(sha256(Buffer.from(await download.arrayBuffer())), sha256(note))
  })

  test('a reply becomes message.received quoting the id and text of the message it answers', async () => {
    const sent = await call(core.apiBase, 'send_message', {
      instance_id: instanceId,
      number: ALICE,
      type: 'text',
      message: 'Which day suits you?',
    })
    assert.equal(sent.status, 200, JSON.stringify(sent.body))
    const askedId = sent.body.message.key.id as string
    const { id } = await control().send(ALICE, { to: ME, text: 'Tuesday', replyTo: askedId })
    const event = await received(id, 'reply')
    assert.equal(event.data.text, 'Tuesday')
    const quoted = event.data.quoted as Record<string, unknown>
    assert.equal(quoted.id, askedId)
    assert.equal(quoted.text, 'Which day suits you?')
    assert.equal(quoted.type, 'text')
  })
})
