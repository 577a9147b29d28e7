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

  test('a video note and view-once media arrive flagged as such, with working download URLs', async () => {
    const video = Buffer.concat([Buffer.from('\0\0\0\x18ftypisom', 'latin1'), Buffer.alloc(3000, 7)])
    const note = await control().send(ALICE, {
      to: ME,
      media: { data: video, mimetype: 'video/mp4', as: 'video_note', seconds: 6 },
    })
    const noteEvent = await received(note.id, 'video note')
    const noteMedia = noteEvent.data.media as Record<string, unknown>
    assert.equal(noteEvent.data.type, 'video')
    assert.equal(noteMedia.video_note, true)
    assert.equal(noteMedia.seconds, 6)
    assert.equal(noteEvent.data.view_once, false)
    const image = Buffer.from(
      'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==',
      'base64',
    )
    const once = await control().send(ALICE, {
      to: ME,
      media: { data: image, mimetype: 'image/png', viewOnce: true },
    })
    const onceEvent = await received(once.id, 'view-once image')
    assert.equal(onceEvent.data.type, 'image')
    assert.equal(onceEvent.data.view_once, true)
    for (const [event, bytes] of [
      [noteEvent, video],
      [onceEvent, image],
    ] as const) {
      const url = String((event.data.media as Record<string, unknown>).download_url)
      const download = await fetch(url, { headers: { authorization: `Bearer ${TOKEN}` } })
      assert.equal(sha256(Buffer.from(await download.arrayBuffer())), sha256(bytes))
    }
  })

  test('a sticker, a location and contact cards become message.received with their content', async () => {
    const sticker = await control().send(ALICE, {
      to: ME,
      media: { data: Buffer.from('RIFF\0\0\0\0WEBPVP8 ', 'latin1'), mimetype: 'image/webp', as: 'sticker' },
    })
    const stickerEvent = await received(sticker.id, 'sticker')
    assert.equal(stickerEvent.data.type, 'sticker')
    assert.equal((stickerEvent.data.media as Record<string, unknown>).mimetype, 'image/webp')
    const place = await control().send(ALICE, {
      to: ME,
      location: { latitude: 40.6892, longitude: -74.0445, name: 'Liberty Island', address: 'New York' },
    })
    const placeEvent = await received(place.id, 'location')
    assert.equal(placeEvent.data.type, 'location')
    assert.deepEqual(placeEvent.data.location, {
      latitude: 40.6892,
      longitude: -74.0445,
      name: 'Liberty Island',
      address: 'New York',
    })
    const cards = await control().send(ALICE, {
      to: ME,
      contacts: [
        { name: 'Bob Builder', phone: '15550400009' },
        { name: 'Carol', phone: '4915112345678' },
      ],
    })
    const cardsEvent = await received(cards.id, 'contact cards')
    assert.equal(cardsEvent.data.type, 'contact')
    const contacts = cardsEvent.data.contacts as Array<Record<string, unknown>>
    assert.deepEqual(
      contacts.map(({ name, phones }) => ({ name, phones })),
      [
        { name: 'Bob Builder', phones: ['15550400009'] },
        { name: 'Carol', phones: ['4915112345678'] },
      ],
    )
    assert.match(String(contacts[0]?.vcard), /^BEGIN:VCARD/)
  })

  test('mentions and a link preview in a group message become message.received fields', async () => {
    const { groupId } = await control().createGroup({ subject: 'Kinds', participants: [ALICE, ME] })
    const { id } = await control().send(ALICE, {
      to: groupId,
      text: `@${ME} the agenda: https://example.org/agenda`,
      mentions: [ME],
      linkPreview: { url: 'https://example.org/agenda', title: 'Agenda', description: 'Monday' },
    })
    const event = await received(id, 'group mention')
    assert.equal(event.data.chat, groupId)
    assert.deepEqual(event.data.mentions, [`${ME}@s.whatsapp.net`])
    assert.deepEqual(event.data.link_preview, {
      url: 'https://example.org/agenda',
      title: 'Agenda',
      description: 'Monday',
    })
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
