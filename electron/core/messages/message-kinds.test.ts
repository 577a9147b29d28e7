import assert from 'node:assert/strict'
import { rmSync } from 'node:fs'
import { after, before, describe, test } from 'node:test'
import type { Core } from '../index'
import { call, startCore, tempDataDir } from '../testing/instance-harness'
import sharp from 'sharp'
import { toSticker } from './media-convert/sticker-image'
import { sineAudio } from '../testing/sine-audio'
import { testVideo } from '../testing/test-video'
import { createVoiceNoteConverter, VOICE_NOTE_MIMETYPE } from './media-convert/voice-note-audio'
import {
  eventually,
  linkedInstance,
  pngBytes,
  recordEvents,
  sha256,
  startFileServer,
  TOKEN,
} from '../testing/messaging-harness'

const ME = '15550400001'
const ALICE = '15550400002'
const BOB = '15550400003'

let core: Core
let dataDir: string
let instanceId: string
let events: ReturnType<typeof recordEvents>
let files: Awaited<ReturnType<typeof startFileServer>>
let mp3: Buffer
let opus: Buffer
let mp4: Buffer
let png: Buffer

before(async () => {
  dataDir = tempDataDir()
  core = await startCore({ dataDir, sandbox: true, limits: { sendIntervalMs: 0, sendJitterMs: 0 } })
  events = recordEvents(core)
  await core.sandbox!.control.addAccount({ phone: ALICE, name: 'Alice' })
  await core.sandbox!.control.addAccount({ phone: BOB, name: 'Bob' })
  instanceId = await linkedInstance(core, ME)
  mp3 = await sineAudio('mp3', 2)
  opus = await sineAudio('ogg-opus', 1)
  mp4 = await testVideo()
  png = await sharp({ create: { width: 300, height: 120, channels: 3, background: '#1a7f37' } })
    .png()
    .toBuffer()
  files = await startFileServer({
    '/hello.mp3': { type: 'audio/mpeg', body: mp3 },
    '/photo.png': { type: 'image/png', body: pngBytes(2048) },
    '/clip.mp4': { type: 'video/mp4', body: mp4 },
    '/logo.png': { type: 'image/png', body: png },
  })
})

after(async () => {
  await files.close()
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

function send(params: Record<string, unknown>) {
  return call(core.apiBase, 'send_message', { instance_id: instanceId, ...params })
}

async function inboxEntry(phone: string, id: string) {
  const [entry] = await eventually(
    () =>
      control()
        .inbox(phone)
        .filter((e) => e.id === id),
    (found) => found.length === 1,
    `message ${id} in the inbox of ${phone}`,
  )
  assert.ok(entry)
  return entry
}

describe('sending', () => {
  test('type=voice from a media_url: MP3 converted to Ogg/Opus, sent as PTT with its length and waveform', async () => {
    const { status, body } = await send({ number: ALICE, type: 'voice', media_url: files.url('/hello.mp3') })
    assert.equal(status, 200, JSON.stringify(body))
    const { key, message } = body.message
    assert.equal(message.audioMessage.ptt, true)
    assert.equal(message.audioMessage.mimetype, VOICE_NOTE_MIMETYPE)
    assert.equal(message.audioMessage.url, undefined, 'no download keys in the answer')
    const entry = await inboxEntry(ALICE, key.id)
    assert.equal(entry.type, 'audio')
    assert.equal(entry.ptt, true)
    assert.equal(entry.mimetype, VOICE_NOTE_MIMETYPE)
    assert.equal(entry.seconds, 2)
    assert.equal(entry.waveform?.length, 64)
    assert.notEqual(entry.sha256, sha256(mp3), 'the contact got the converted file, not the MP3')
    const sent = await events.waitFor((e) => e.event === 'message.sent' && e.data.id === key.id, 'sent')
    assert.equal((sent.data.media as Record<string, unknown>).voice_note, true)
  })

  test('type=voice as a multipart file part: Ogg/Opus is sent as it is', async () => {
    const form = new FormData()
    form.set('access_token', TOKEN)
    form.set('instance_id', instanceId)
    form.set('number', ALICE)
    form.set('type', 'voice')
    form.set('file', new Blob([new Uint8Array(opus)], { type: 'audio/ogg' }), 'note.ogg')
    const response = await fetch(`${core.apiBase}/send_message`, { method: 'POST', body: form })
    const body = await response.json()
    assert.equal(response.status, 200, JSON.stringify(body))
    const entry = await inboxEntry(ALICE, body.message.key.id)
    assert.equal(entry.ptt, true)
    assert.equal(entry.sha256, sha256(opus))
  })

  test('type=location by GET with decimal strings arrives with its coordinates, name and address', async () => {
    const query = new URLSearchParams({
      access_token: TOKEN,
      instance_id: instanceId,
      number: ALICE,
      type: 'location',
      latitude: '-33.8568',
      longitude: '151.2153',
      location_name: 'Opera House',
      address: 'Bennelong Point, Sydney',
    })
    const response = await fetch(`${core.apiBase}/send_message?${query}`)
    const body = await response.json()
    assert.equal(response.status, 200, JSON.stringify(body))
    assert.deepEqual(body.message.message, {
      locationMessage: {
        degreesLatitude: -33.8568,
        degreesLongitude: 151.2153,
        name: 'Opera House',
        address: 'Bennelong Point, Sydney',
      },
    })
    const entry = await inboxEntry(ALICE, body.message.key.id)
    assert.deepEqual(entry.location, {
      latitude: -33.8568,
      longitude: 151.2153,
      name: 'Opera House',
      address: 'Bennelong Point, Sydney',
    })
  })

  test('type=contacts from a form with the key repeated, and from a JSON array, arrive as vCards', async () => {
    const form = new URLSearchParams({ access_token: TOKEN, instance_id: instanceId, number: ALICE })
    form.set('type', 'contacts')
    form.append('contacts', 'Bob Builder:+1 555 040 0003')
    form.append('contacts', 'Dr. Who: The Doctor:+44 20 7946 0000')
    const response = await fetch(`${core.apiBase}/send_message`, { method: 'POST', body: form })
    const body = await response.json()
    assert.equal(response.status, 200, JSON.stringify(body))
    const entry = await inboxEntry(ALICE, body.message.key.id)
    assert.equal(entry.type, 'contact')
    assert.deepEqual(
      entry.contacts?.map(({ name, phones }) => ({ name, phones })),
      [
        { name: 'Bob Builder', phones: [BOB] },
        { name: 'Dr. Who: The Doctor', phones: ['442079460000'] },
      ],
    )
    const one = await send({ number: ALICE, type: 'contacts', contacts: ['Bob:15550400003'] })
    assert.equal(one.status, 200, JSON.stringify(one.body))
    assert.equal(one.body.message.message.contactMessage.displayName, 'Bob')
    const single = await inboxEntry(ALICE, one.body.message.key.id)
    assert.deepEqual(single.contacts?.[0]?.phones, [BOB])
  })

  test('reply_to quotes a received message; the text answer keeps the seed shape', async () => {
    const { id: question } = await control().send(ALICE, { to: ME, text: 'Are you coming?' })
    await received(question, 'question')
    const { status, body } = await send({ number: ALICE, type: 'text', message: 'Yes!', reply_to: question })
    assert.equal(status, 200, JSON.stringify(body))
    assert.deepEqual(body.message.message, { extendedTextMessage: { text: 'Yes!' } })
    const entry = await inboxEntry(ALICE, body.message.key.id)
    assert.equal(entry.text, 'Yes!')
    assert.equal(entry.quotedId, question)
    const sent = await events.waitFor(
      (e) => e.event === 'message.sent' && e.data.id === body.message.key.id,
      'sent',
    )
    assert.equal((sent.data.quoted as Record<string, unknown>).id, question)
  })

  test('mentions in a group: listed numbers and @<number> in the text, for every member', async () => {
    const { groupId } = await control().createGroup({ subject: 'Mentions', participants: [ALICE, BOB, ME] })
    const { status, body } = await send({
      number: groupId,
      type: 'text',
      message: `@${BOB} please call @${ALICE}`,
      mentions: `${ALICE},+1 555 040 0003`,
    })
    assert.equal(status, 200, JSON.stringify(body))
    for (const phone of [ALICE, BOB]) {
      const entry = await inboxEntry(phone, body.message.key.id)
      assert.deepEqual(entry.mentions, [`${ALICE}@s.whatsapp.net`, `${BOB}@s.whatsapp.net`])
    }
  })

  test('type=sticker turns a PNG into a 512×512 WebP sticker', async () => {
    const { status, body } = await send({ number: ALICE, type: 'sticker', media_url: files.url('/logo.png') })
    assert.equal(status, 200, JSON.stringify(body))
    assert.equal(body.message.message.stickerMessage.mimetype, 'image/webp')
    const entry = await inboxEntry(ALICE, body.message.key.id)
    assert.equal(entry.type, 'sticker')
    assert.equal(entry.mimetype, 'image/webp')
    assert.equal(entry.sha256, sha256(await toSticker(png)), 'the contact got the converted sticker')
  })

  test('type=video_note sends a round video note; view_once sends an image that opens once', async () => {
    const note = await send({ number: ALICE, type: 'video_note', media_url: files.url('/clip.mp4') })
    assert.equal(note.status, 200, JSON.stringify(note.body))
    assert.ok(note.body.message.message.ptvMessage, JSON.stringify(note.body.message.message))
    const noteEntry = await inboxEntry(ALICE, note.body.message.key.id)
    assert.equal(noteEntry.videoNote, true)
    assert.equal(noteEntry.sha256, sha256(mp4))
    const once = await send({
      number: ALICE,
      type: 'media',
      media_url: files.url('/logo.png'),
      message: 'once',
      view_once: 'true',
    })
    assert.equal(once.status, 200, JSON.stringify(once.body))
    assert.equal(once.body.message.message.viewOnceMessage.message.imageMessage.caption, 'once')
    const onceEntry = await inboxEntry(ALICE, once.body.message.key.id)
    assert.equal(onceEntry.viewOnce, true)
    assert.equal(onceEntry.sha256, sha256(png))
  })

  test('media_base64 in a JSON body sends the file as a media_url would, for media and voice notes', async () => {
    const image = await send({
      number: ALICE,
      type: 'media',
      media_base64: png.toString('base64'),
      message: 'b64',
    })
    assert.equal(image.status, 200, JSON.stringify(image.body))
    assert.equal(image.body.message.message.imageMessage.caption, 'b64')
    assert.equal((await inboxEntry(ALICE, image.body.message.key.id)).sha256, sha256(png))
    const voice = await send({
      number: ALICE,
      type: 'voice',
      media_base64: `data:audio/ogg;base64,${opus.toString('base64')}`,
    })
    assert.equal(voice.status, 200, JSON.stringify(voice.body))
    const entry = await inboxEntry(ALICE, voice.body.message.key.id)
    assert.equal(entry.ptt, true)
    assert.equal(entry.sha256, sha256(opus))
  })

  test('bad input is refused with its code naming the field, and nothing reaches the contact', async () => {
    const before = control().inbox(ALICE).length
    const cases: Array<[Record<string, unknown>, number, string, RegExp]> = [
      [{ type: 'location', latitude: 91, longitude: 0 }, 422, 'invalid_location', /latitude/],
      [{ type: 'location', latitude: '10', longitude: '-180.5' }, 422, 'invalid_location', /longitude/],
      [{ type: 'location', latitude: 'north', longitude: 2 }, 400, 'invalid_parameter', /latitude/],
      [{ type: 'location', longitude: 2 }, 400, 'missing_parameter', /latitude/],
      [{ type: 'contacts', contacts: ['no number here'] }, 400, 'invalid_parameter', /contacts/],
      [{ type: 'contacts' }, 400, 'missing_parameter', /contacts/],
      [{ type: 'text', message: 'hi', reply_to: 'NO-SUCH-MESSAGE' }, 422, 'quoted_not_found', /reply_to/],
      [{ type: 'text', message: 'hi', mentions: ['not-a-number'] }, 400, 'invalid_parameter', /mentions/],
      [{ type: 'voice' }, 400, 'missing_parameter', /media_url/],
      [
        { type: 'voice', media_url: files.url('/hello.mp3'), message: 'hi' },
        400,
        'invalid_parameter',
        /message/,
      ],
      [
        { type: 'voice', media_url: files.url('/photo.png') },
        422,
        'media_unavailable',
        /media_url is not audio/,
      ],
      [{ type: 'text', message: 'hi', latitude: 1 }, 400, 'invalid_parameter', /latitude/],
      [{ type: 'poll', media_url: files.url('/hello.mp3') }, 400, 'invalid_parameter', /type/],
      [{ type: 'sticker', media_url: files.url('/hello.mp3') }, 422, 'media_unavailable', /not an image/],
      [{ type: 'video_note', media_url: files.url('/logo.png') }, 422, 'media_unavailable', /not a video/],
      [{ type: 'media', media_base64: 'not base64!' }, 400, 'invalid_parameter', /media_base64/],
      [
        { type: 'media', media_base64: png.toString('base64'), media_url: files.url('/logo.png') },
        400,
        'invalid_parameter',
        /media_base64/,
      ],
      [
        { type: 'media', media_url: files.url('/hello.mp3'), view_once: true },
        400,
        'invalid_parameter',
        /view_once/,
      ],
      [{ type: 'text', message: 'hi', view_once: true }, 400, 'invalid_parameter', /view_once/],
    ]
    for (const [params, status, code, message] of cases) {
      const answer = await send({ number: ALICE, ...params })
      assert.equal(answer.status, status, JSON.stringify([params, answer.body]))
      assert.equal(answer.body.code, code, JSON.stringify(params))
      assert.match(answer.body.message, message, JSON.stringify(params))
    }
    await new Promise((resolve) => setTimeout(resolve, 200))
    assert.equal(control().inbox(ALICE).length, before)
  })
})
