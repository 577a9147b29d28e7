import assert from 'node:assert/strict'
import { createHash, randomBytes } from 'node:crypto'
import { after, before, test } from 'node:test'
import type { WAMessage } from '@whiskeysockets/baileys'
import { parseContactCard } from '../kinds/contact-card'
import type { Sandbox } from './index'
import { inboxEntry, linkedClient, startTestSandbox } from './testing/sandbox-fixture'
import type { SandboxClient } from './testing/sandbox-client'
import { solidPng } from './testing/solid-png'

const ME = '15550001111'
const ALICE = '15551230001'
const BOB = '15551230002'
const jidOf = (phone: string): string => `${phone}@s.whatsapp.net`

let sandbox: Sandbox
let device: SandboxClient
let groupJid: string

before(async () => {
  sandbox = await startTestSandbox()
  await sandbox.control.addAccount({ phone: ALICE, name: 'Alice' })
  await sandbox.control.addAccount({ phone: BOB, name: 'Bob' })
  device = await linkedClient(sandbox, ME)
  groupJid = (await sandbox.control.createGroup({ subject: 'Kinds', participants: [ALICE, BOB, ME] })).groupId
})

after(async () => {
  await device.stop()
  await sandbox.close()
})

const sha256 = (data: Buffer): string => createHash('sha256').update(data).digest('hex')

function sock(): NonNullable<SandboxClient['sock']> {
  assert.ok(device.sock)
  return device.sock
}

async function deviceSends(
  to: string,
  content: Parameters<ReturnType<typeof sock>['sendMessage']>[1],
  options = {},
) {
  const sent = await sock().sendMessage(to, content, options)
  assert.ok(sent?.key.id)
  return sent
}

// The device sends each kind with Baileys' own sendMessage; the contact's phone records what it decrypted.

test('a voice note arrives as push-to-talk audio with its seconds and exact bytes', async () => {
  const audio = randomBytes(12_000)
  const sent = await deviceSends(jidOf(ALICE), {
    audio,
    ptt: true,
    seconds: 7,
    mimetype: 'audio/ogg; codecs=opus',
  })
  const entry = await inboxEntry(sandbox, ALICE, sent.key.id ?? '')
  assert.equal(entry.type, 'audio')
  assert.equal(entry.ptt, true)
  assert.equal(entry.seconds, 7)
  assert.equal(entry.mimetype, 'audio/ogg; codecs=opus')
  assert.equal(entry.size, audio.length)
  assert.equal(entry.sha256, sha256(audio))
})

test('plain audio is not a voice note', async () => {
  const audio = randomBytes(3000)
  const sent = await deviceSends(jidOf(ALICE), { audio, seconds: 2, mimetype: 'audio/mpeg' })
  const entry = await inboxEntry(sandbox, ALICE, sent.key.id ?? '')
  assert.equal(entry.type, 'audio')
  assert.equal(entry.ptt, false)
  assert.equal(entry.sha256, sha256(audio))
})

test('a round video note arrives as a video note with its exact bytes', async () => {
  const video = randomBytes(20_000)
  const sent = await deviceSends(jidOf(ALICE), { video, ptv: true, mimetype: 'video/mp4' })
  const entry = await inboxEntry(sandbox, ALICE, sent.key.id ?? '')
  assert.equal(entry.type, 'video')
  assert.equal(entry.videoNote, true)
  assert.equal(entry.viewOnce, false)
  assert.equal(entry.sha256, sha256(video))
})

test('view-once images and videos arrive flagged view-once, with their exact bytes', async () => {
  const image = solidPng(16, 16, [10, 120, 200])
  const sentImage = await deviceSends(jidOf(ALICE), { image, caption: 'once', viewOnce: true })
  const imageEntry = await inboxEntry(sandbox, ALICE, sentImage.key.id ?? '')
  assert.equal(imageEntry.type, 'image')
  assert.equal(imageEntry.viewOnce, true)
  assert.equal(imageEntry.caption, 'once')
  assert.equal(imageEntry.sha256, sha256(image))
  const video = randomBytes(9000)
  const sentVideo = await deviceSends(jidOf(ALICE), { video, mimetype: 'video/mp4', viewOnce: true })
  const videoEntry = await inboxEntry(sandbox, ALICE, sentVideo.key.id ?? '')
  assert.equal(videoEntry.type, 'video')
  assert.equal(videoEntry.viewOnce, true)
  assert.equal(videoEntry.videoNote, false)
  assert.equal(videoEntry.sha256, sha256(video))
})

test('a sticker arrives as a WebP sticker with its exact bytes', async () => {
  const sticker = randomBytes(4000)
  const sent = await deviceSends(jidOf(ALICE), { sticker })
  const entry = await inboxEntry(sandbox, ALICE, sent.key.id ?? '')
  assert.equal(entry.type, 'sticker')
  assert.equal(entry.mimetype, 'image/webp')
  assert.equal(entry.sha256, sha256(sticker))
})

test('a location arrives with its coordinates, name and address', async () => {
  const sent = await deviceSends(jidOf(ALICE), {
    location: { degreesLatitude: 52.520008, degreesLongitude: 13.404954, name: 'Alex', address: 'Berlin' },
  })
  const entry = await inboxEntry(sandbox, ALICE, sent.key.id ?? '')
  assert.equal(entry.type, 'location')
  assert.deepEqual(entry.location, {
    latitude: 52.520008,
    longitude: 13.404954,
    name: 'Alex',
    address: 'Berlin',
  })
})

test('one contact card and a list of cards arrive with their vCards read into names and numbers', async () => {
  const vcard = (name: string, phone: string): string =>
    `BEGIN:VCARD\nVERSION:3.0\nFN:${name}\nTEL;type=CELL;waid=${phone}:+${phone}\nEND:VCARD`
  const one = await deviceSends(jidOf(ALICE), {
    contacts: { displayName: 'Bob', contacts: [{ displayName: 'Bob', vcard: vcard('Bob', BOB) }] },
  })
  const single = await inboxEntry(sandbox, ALICE, one.key.id ?? '')
  assert.equal(single.type, 'contact')
  assert.deepEqual(
    single.contacts?.map(({ name, phones }) => ({ name, phones })),
    [{ name: 'Bob', phones: [BOB] }],
  )
  const many = await deviceSends(jidOf(ALICE), {
    contacts: {
      displayName: '2 contacts',
      contacts: [
        { displayName: 'Bob', vcard: vcard('Bob', BOB) },
        { displayName: 'Zed', vcard: vcard('Zed Zero', '4915112345678') },
      ],
    },
  })
  const list = await inboxEntry(sandbox, ALICE, many.key.id ?? '')
  assert.equal(list.type, 'contact')
  assert.deepEqual(
    list.contacts?.map(({ name, phones }) => ({ name, phones })),
    [
      { name: 'Bob', phones: [BOB] },
      { name: 'Zed Zero', phones: ['4915112345678'] },
    ],
  )
})

test('a reply arrives with the id of the message it quotes', async () => {
  const { id } = await sandbox.control.send(ALICE, { to: ME, text: 'question?' })
  const question = await device.waitForMessage(id)
  const sent = await deviceSends(jidOf(ALICE), { text: 'answer' }, { quoted: question })
  const entry = await inboxEntry(sandbox, ALICE, sent.key.id ?? '')
  assert.equal(entry.text, 'answer')
  assert.equal(entry.quotedId, id)
})

test('mentions in a group arrive as the mentioned JIDs, for every member', async () => {
  const sent = await deviceSends(groupJid, {
    text: `@${ALICE} @${BOB} look`,
    mentions: [jidOf(ALICE), jidOf(BOB)],
  })
  for (const phone of [ALICE, BOB]) {
    const entry = await inboxEntry(sandbox, phone, sent.key.id ?? '')
    assert.equal(entry.chat, groupJid)
    assert.deepEqual(entry.mentions, [jidOf(ALICE), jidOf(BOB)])
  }
})

test('a text with a link preview arrives with the preview title and URL', async () => {
  const sent = await deviceSends(jidOf(ALICE), {
    text: 'see https://example.org/page',
    linkPreview: {
      'canonical-url': 'https://example.org/page',
      'matched-text': 'https://example.org/page',
      title: 'Example page',
      description: 'An example',
      originalThumbnailUrl: undefined,
    },
  })
  const entry = await inboxEntry(sandbox, ALICE, sent.key.id ?? '')
  assert.deepEqual(entry.linkPreview, {
    url: 'https://example.org/page',
    title: 'Example page',
    description: 'An example',
    thumbnail: null,
  })
  assert.deepEqual(entry.mentions, [])
  assert.equal(entry.quotedId, null)
})

// A contact sends each kind through the control surface; the device's Baileys shows the right content.

async function contactSends(input: Parameters<Sandbox['control']['send']>[1]): Promise<WAMessage> {
  const { id } = await sandbox.control.send(ALICE, input)
  return device.waitForMessage(id)
}

test('a contact voice note reaches the device as PTT with its seconds and downloads byte-identical', async () => {
  const audio = randomBytes(8000)
  const received = await contactSends({
    to: ME,
    media: { data: audio, mimetype: 'audio/ogg; codecs=opus', as: 'voice_note', seconds: 4 },
  })
  const message = received.message?.audioMessage
  assert.equal(message?.ptt, true)
  assert.equal(message?.seconds, 4)
  assert.equal(sha256(await device.download(received)), sha256(audio))
})

test('a contact video note and view-once image reach the device as such and download byte-identical', async () => {
  const video = randomBytes(10_000)
  const note = await contactSends({
    to: ME,
    media: { data: video, mimetype: 'video/mp4', as: 'video_note', seconds: 3 },
  })
  assert.equal(note.message?.ptvMessage?.seconds, 3)
  assert.equal(sha256(await device.download(note)), sha256(video))
  const image = solidPng(8, 8, [0, 200, 0])
  const once = await contactSends({ to: ME, media: { data: image, mimetype: 'image/png', viewOnce: true } })
  assert.equal(once.message?.viewOnceMessageV2?.message?.imageMessage?.viewOnce, true)
  assert.equal(sha256(await device.download(once)), sha256(image))
})

test('a contact sticker reaches the device as a sticker and downloads byte-identical', async () => {
  const sticker = randomBytes(3000)
  const received = await contactSends({
    to: ME,
    media: { data: sticker, mimetype: 'image/webp', as: 'sticker' },
  })
  assert.equal(received.message?.stickerMessage?.mimetype, 'image/webp')
  assert.equal(sha256(await device.download(received)), sha256(sticker))
})

test('a contact location and contact cards reach the device with their content', async () => {
  const place = await contactSends({
    to: ME,
    location: { latitude: -33.8568, longitude: 151.2153, name: 'Opera House', address: 'Sydney' },
  })
  assert.equal(place.message?.locationMessage?.degreesLatitude, -33.8568)
  assert.equal(place.message?.locationMessage?.degreesLongitude, 151.2153)
  assert.equal(place.message?.locationMessage?.name, 'Opera House')
  const one = await contactSends({ to: ME, contacts: [{ name: 'Bob', phone: BOB }] })
  assert.equal(one.message?.contactMessage?.displayName, 'Bob')
  assert.deepEqual(parseContactCard(one.message?.contactMessage?.vcard ?? ''), { name: 'Bob', phones: [BOB] })
  const two = await contactSends({
    to: ME,
    contacts: [
      { name: 'Bob', phone: BOB },
      { name: 'Me', phone: ME },
    ],
  })
  const cards = two.message?.contactsArrayMessage?.contacts ?? []
  assert.deepEqual(
    cards.map((card) => parseContactCard(card.vcard ?? '')),
    [
      { name: 'Bob', phones: [BOB] },
      { name: 'Me', phones: [ME] },
    ],
  )
})

test('a contact reply quotes the device message by id and text; mentions and a link preview come along', async () => {
  const sent = await deviceSends(jidOf(ALICE), { text: 'what time?' })
  await inboxEntry(sandbox, ALICE, sent.key.id ?? '')
  const reply = await contactSends({
    to: ME,
    text: `@${ME} at noon, see https://example.org/noon`,
    replyTo: sent.key.id ?? '',
    mentions: [ME],
    linkPreview: { url: 'https://example.org/noon', title: 'Noon', description: 'Midday' },
  })
  const extended = reply.message?.extendedTextMessage
  assert.equal(extended?.contextInfo?.stanzaId, sent.key.id)
  assert.equal(extended?.contextInfo?.quotedMessage?.conversation, 'what time?')
  assert.deepEqual(extended?.contextInfo?.mentionedJid, [jidOf(ME)])
  assert.equal(extended?.matchedText, 'https://example.org/noon')
  assert.equal(extended?.title, 'Noon')
})

test('a contact can quote a message it sent itself, in a group, with mentions', async () => {
  const { id: first } = await sandbox.control.send(ALICE, { to: groupJid, text: 'first' })
  await device.waitForMessage(first)
  const { id } = await sandbox.control.send(ALICE, {
    to: groupJid,
    text: `@${BOB} see above`,
    replyTo: first,
    mentions: [BOB],
  })
  const received = await device.waitForMessage(id)
  const context = received.message?.extendedTextMessage?.contextInfo
  assert.equal(context?.stanzaId, first)
  assert.equal(context?.participant, jidOf(ALICE))
  assert.equal(context?.quotedMessage?.conversation, 'first')
  assert.deepEqual(context?.mentionedJid, [jidOf(BOB)])
  const bobsCopy = await inboxEntry(sandbox, BOB, id)
  assert.equal(bobsCopy.quotedId, first)
  assert.deepEqual(bobsCopy.mentions, [jidOf(BOB)])
})

test('bad kinds are refused with the field named, and nothing is sent', async () => {
  const before = sandbox.control.inbox(ME).length
  const upserts = device.upserts.length
  const refusals: Array<[Parameters<Sandbox['control']['send']>[1], string, RegExp]> = [
    [{ to: ME, location: { latitude: 91, longitude: 0 } }, 'invalid_parameter', /location\.latitude/],
    [{ to: ME, location: { latitude: 0, longitude: -180.5 } }, 'invalid_parameter', /location\.longitude/],
    [{ to: ME, contacts: [] }, 'invalid_parameter', /contacts/],
    [{ to: ME, contacts: [{ name: 'X', phone: '+1 555' }] }, 'invalid_parameter', /contacts/],
    [{ to: ME, text: 'x', mentions: ['nope'] }, 'invalid_parameter', /mentions/],
    [{ to: ME, text: 'x', replyTo: 'NO-SUCH-ID' }, 'quoted_not_found', /reply_to/],
    [{ to: ME, text: 'x', location: { latitude: 1, longitude: 1 } }, 'invalid_parameter', /one of/],
    [
      { to: ME, media: { data: randomBytes(10), mimetype: 'audio/ogg', viewOnce: true } },
      'invalid_parameter',
      /view_once/,
    ],
    [
      { to: ME, media: { data: randomBytes(10), mimetype: 'audio/ogg', as: 'voice_note', seconds: -1 } },
      'invalid_parameter',
      /seconds/,
    ],
    [
      { to: ME, location: { latitude: 1, longitude: 1 }, linkPreview: { url: 'https://a.b', title: 't' } },
      'invalid_parameter',
      /link_preview/,
    ],
  ]
  for (const [input, code, message] of refusals) {
    await assert.rejects(sandbox.control.send(ALICE, input), (error: Error & { code?: string }) => {
      assert.equal(error.code, code, JSON.stringify(input))
      assert.match(error.message, message)
      return true
    })
  }
  await new Promise((resolve) => setTimeout(resolve, 100))
  assert.equal(sandbox.control.inbox(ME).length, before)
  assert.equal(device.upserts.length, upserts)
})
