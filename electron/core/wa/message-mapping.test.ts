import assert from 'node:assert/strict'
import { test } from 'node:test'
import { proto, type WAMessage } from '@whiskeysockets/baileys'
import { silentLogger } from '../logger'
import {
  foldedStatusUpdates,
  mapInboundMessages,
  mapSentMessage,
  mapStatusUpdates,
  quotedOf,
  toProtocolContent,
} from './message-mapping'
import type { WaAccount } from '../contract/network'

const me: WaAccount = {
  id: '15550000001:3@s.whatsapp.net',
  number: '15550000001',
  name: 'Me',
  lid: '99900000001:3@lid',
}

/** A received protocol message: a text from 15550000002 unless the patch says otherwise. */
function received(patch: { key?: Partial<WAMessage['key']>; message?: proto.IMessage } = {}): WAMessage {
  return {
    key: { id: 'M1', remoteJid: '15550000002@s.whatsapp.net', fromMe: false, ...patch.key },
    message: patch.message ?? { conversation: 'hi' },
    messageTimestamp: 1795248324,
    pushName: 'Alice',
  }
}

function mapOne(message: WAMessage) {
  const [mapped] = mapInboundMessages([message], me, silentLogger())
  assert.ok(mapped, 'the message is mapped')
  return mapped
}

test('a LID-addressed 1:1 message shows the phone number as chat and sender, with the LID beside it', () => {
  const { message } = mapOne(
    received({ key: { remoteJid: '88800000002@lid', remoteJidAlt: '15550000002@s.whatsapp.net' } }),
  )
  assert.equal(message.chat, '15550000002@s.whatsapp.net')
  assert.equal(message.sender, '15550000002@s.whatsapp.net')
  assert.equal(message.sender_phone, '15550000002')
  assert.equal(message.sender_lid, '88800000002@lid')
  assert.equal(message.push_name, 'Alice')
  assert.equal(message.text, 'hi')
  assert.equal(message.timestamp, '1795248324')
})

test('a LID-only sender stays a LID, with no phone number invented', () => {
  const { message } = mapOne(received({ key: { remoteJid: '88800000002@lid' } }))
  assert.equal(message.chat, '88800000002@lid')
  assert.equal(message.sender_phone, null)
  assert.equal(message.sender_lid, '88800000002@lid')
})

test('a group message names the group as chat and the member (device suffix dropped) as sender', () => {
  const { message } = mapOne(
    received({
      key: {
        remoteJid: '120363000000000001@g.us',
        participant: '88800000003:2@lid',
        participantAlt: '15550000003@s.whatsapp.net',
      },
    }),
  )
  assert.equal(message.is_group, true)
  assert.equal(message.chat, '120363000000000001@g.us')
  assert.equal(message.sender, '15550000003@s.whatsapp.net')
  assert.equal(message.sender_lid, '88800000003@lid')
})

test('own messages name this account; media gets facts without keys; replies carry the quoted message', () => {
  const sha256 = Buffer.from('ab', 'hex')
  const mapped = mapOne(
    received({
      key: { fromMe: true },
      message: {
        documentMessage: {
          url: 'https://mmg.example/x',
          mediaKey: Buffer.from('secret'),
          mimetype: 'application/pdf',
          fileName: 'a.pdf',
          fileLength: 10,
          fileSha256: sha256,
          caption: 'see attached',
          contextInfo: {
            stanzaId: 'Q1',
            participant: '15550000002:1@s.whatsapp.net',
            quotedMessage: { conversation: 'send it' },
          },
        },
      },
    }),
  )
  const { message } = mapped
  assert.equal(message.from_me, true)
  assert.equal(message.sender, '15550000001@s.whatsapp.net')
  assert.equal(message.sender_lid, '99900000001@lid')
  assert.equal(message.type, 'document')
  assert.equal(message.text, null)
  assert.equal(message.caption, 'see attached')
  assert.deepEqual(message.media, {
    mimetype: 'application/pdf',
    size: 10,
    filename: 'a.pdf',
    sha256: 'ab',
    seconds: null,
    voice_note: false,
    video_note: false,
    download_url: null,
  })
  assert.deepEqual(message.quoted, {
    id: 'Q1',
    sender: '15550000002@s.whatsapp.net',
    type: 'text',
    text: 'send it',
  })
  assert.deepEqual(mapped.networkKey, {
    id: 'M1',
    chat: '15550000002@s.whatsapp.net',
    chatAlt: null,
    fromMe: true,
    participant: null,
    participantAlt: null,
  })
  assert.equal(proto.Message.decode(mapped.content).documentMessage?.fileName, 'a.pdf', 'content kept whole')
})

test('a voice note is audio with its length and the voice-note flag', () => {
  const { message } = mapOne(
    received({ message: { audioMessage: { mimetype: 'audio/ogg; codecs=opus', seconds: 7, ptt: true } } }),
  )
  assert.equal(message.type, 'audio')
  assert.equal(message.media?.seconds, 7)
  assert.equal(message.media?.voice_note, true)
})

test('kinds without a text form are named from the protocol, else unknown', () => {
  const typeOf = (message: proto.IMessage) => mapOne(received({ message })).message.type
  assert.equal(typeOf({ locationMessage: { degreesLatitude: 1, degreesLongitude: 2 } }), 'location')
  assert.equal(typeOf({ pollCreationMessageV3: { name: 'lunch?' } }), 'poll')
  assert.equal(typeOf({ contactMessage: { displayName: 'Bob' } }), 'contact')
  assert.equal(typeOf({ groupInviteMessage: { groupJid: '1@g.us', caption: 'Join' } }), 'group_invite')
  assert.equal(typeOf({ orderMessage: { orderId: '1' } }), 'unknown')
})

test('a location reads as its coordinates, name and address', () => {
  const { message } = mapOne(
    received({
      message: {
        locationMessage: {
          degreesLatitude: 52.52,
          degreesLongitude: 13.405,
          name: 'Alex',
          address: 'Berlin',
        },
      },
    }),
  )
  assert.equal(message.type, 'location')
  assert.deepEqual(message.location, { latitude: 52.52, longitude: 13.405, name: 'Alex', address: 'Berlin' })
  assert.equal(mapOne(received()).message.location, null)
})

test('contact cards read as names and numbers from their vCards', () => {
  const vcard = 'BEGIN:VCARD\nVERSION:3.0\nFN:Bob Q\nTEL;waid=15550000009:+1 555 000 0009\nEND:VCARD'
  const one = mapOne(received({ message: { contactMessage: { displayName: 'Bob', vcard } } })).message
  assert.deepEqual(one.contacts, [{ name: 'Bob Q', phones: ['15550000009'], vcard }])
  const list = mapOne(
    received({
      message: {
        contactsArrayMessage: {
          contacts: [
            { displayName: 'Bob', vcard },
            { displayName: 'No card', vcard: 'not a vcard' },
          ],
        },
      },
    }),
  ).message
  assert.equal(list.type, 'contact')
  assert.deepEqual(
    list.contacts?.map((card) => [card.name, card.phones]),
    [
      ['Bob Q', ['15550000009']],
      ['No card', []],
    ],
  )
})

test('mentions, a link preview and view-once media are read; a video note is a video', () => {
  const text = mapOne(
    received({
      message: {
        extendedTextMessage: {
          text: '@15550000009 see https://example.org',
          matchedText: 'https://example.org',
          title: 'Example',
          contextInfo: { mentionedJid: ['15550000009@s.whatsapp.net', '77700000001:2@lid'] },
        },
      },
    }),
  ).message
  assert.deepEqual(text.mentions, ['15550000009@s.whatsapp.net', '77700000001@lid'])
  assert.deepEqual(text.link_preview, { url: 'https://example.org', title: 'Example', description: null })
  const plain = mapOne(received()).message
  assert.deepEqual([plain.mentions, plain.link_preview, plain.view_once], [[], null, false])
  const once = mapOne(
    received({ message: { viewOnceMessageV2: { message: { imageMessage: { mimetype: 'image/jpeg' } } } } }),
  ).message
  assert.equal(once.type, 'image')
  assert.equal(once.view_once, true)
  const note = mapOne(received({ message: { ptvMessage: { mimetype: 'video/mp4', seconds: 9 } } })).message
  assert.equal(note.type, 'video')
  assert.equal(note.media?.video_note, true)
  assert.equal(note.media?.seconds, 9)
})

test('protocol messages and messages without content are left out', () => {
  const mapped = mapInboundMessages(
    [
      received({ message: { protocolMessage: { type: 0 } } }),
      { key: { id: 'M2', remoteJid: '15550000002@s.whatsapp.net' } },
    ],
    me,
    silentLogger(),
  )
  assert.deepEqual(mapped, [])
})

test('a reply carries the quoted message id, author, type and text', () => {
  const quoted = quotedOf({
    extendedTextMessage: {
      text: 'yes',
      contextInfo: {
        stanzaId: 'Q1',
        participant: '15550000002@s.whatsapp.net',
        quotedMessage: { imageMessage: { caption: 'this one?' } },
      },
    },
  })
  assert.deepEqual(quoted, {
    id: 'Q1',
    sender: '15550000002@s.whatsapp.net',
    type: 'image',
    text: 'this one?',
  })
})

test('a message that replies to nothing has no quoted message', () => {
  assert.equal(quotedOf({ conversation: 'hello' }), null)
  assert.equal(quotedOf({ extendedTextMessage: { text: 'hi', contextInfo: {} } }), null)
})

test('statuses are Linkdesk delivery statuses; pending is no news', () => {
  const key = { id: 'S1', remoteJid: '15550000002@s.whatsapp.net', fromMe: true }
  const mapped = mapStatusUpdates([
    { key, update: { status: proto.WebMessageInfo.Status.PENDING } },
    { key, update: { status: proto.WebMessageInfo.Status.READ, messageTimestamp: 5 } },
  ])
  assert.deepEqual(mapped, [
    {
      id: 'S1',
      chat: '15550000002@s.whatsapp.net',
      status: 'read',
      participant: null,
      timestamp: '5',
      errorCode: null,
    },
  ])
})

test('a receipt folded into an own message’s upsert is its status; sent, pending and incoming ones are not', () => {
  const chat = '15550000002@s.whatsapp.net'
  const { Status } = proto.WebMessageInfo
  const mapped = foldedStatusUpdates([
    { key: { id: 'R1', remoteJid: chat, fromMe: true }, status: Status.READ, messageTimestamp: 7 },
    { key: { id: 'R2', remoteJid: chat, fromMe: true }, status: Status.SERVER_ACK },
    { key: { id: 'R3', remoteJid: chat, fromMe: true }, status: Status.PENDING },
    { key: { id: 'R4', remoteJid: chat, fromMe: false }, status: Status.DELIVERY_ACK },
    { key: { id: 'R5', remoteJid: chat, fromMe: true } },
  ])
  assert.deepEqual(mapped, [
    { id: 'R1', chat, status: 'read', participant: null, timestamp: '7', errorCode: null },
  ])
})

test('each kind Linkdesk sends is written as its protocol content', () => {
  const file = Buffer.from('x')
  assert.deepEqual(toProtocolContent({ kind: 'text', text: 'hi' }), { text: 'hi' })
  assert.deepEqual(toProtocolContent({ kind: 'image', media: file, mimetype: 'image/png', caption: 'c' }), {
    image: file,
    caption: 'c',
    mimetype: 'image/png',
  })
  assert.deepEqual(toProtocolContent({ kind: 'document', media: file, fileName: 'a.bin' }), {
    document: file,
    mimetype: 'application/octet-stream',
    fileName: 'a.bin',
    caption: undefined,
  })
  assert.deepEqual(toProtocolContent({ kind: 'voice', media: file, mimetype: 'audio/ogg; codecs=opus' }), {
    audio: file,
    mimetype: 'audio/ogg; codecs=opus',
    ptt: true,
  })
  assert.deepEqual(toProtocolContent({ kind: 'video_note', media: file, mimetype: 'video/mp4' }), {
    video: file,
    mimetype: 'video/mp4',
    ptv: true,
  })
  assert.deepEqual(toProtocolContent({ kind: 'sticker', media: file }), { sticker: file })
  assert.deepEqual(
    toProtocolContent({ kind: 'image', media: file, mimetype: 'image/png', viewOnce: true }, [
      '1@s.whatsapp.net',
    ]),
    {
      image: file,
      caption: undefined,
      mimetype: 'image/png',
      viewOnce: true,
      mentions: ['1@s.whatsapp.net'],
    },
  )
  assert.deepEqual(toProtocolContent({ kind: 'location', latitude: 1.5, longitude: -2, name: 'P' }), {
    location: { degreesLatitude: 1.5, degreesLongitude: -2, name: 'P', address: undefined },
  })
  assert.deepEqual(toProtocolContent({ kind: 'contacts', contacts: [{ name: 'A', vcard: 'V' }] }), {
    contacts: { displayName: 'A', contacts: [{ displayName: 'A', vcard: 'V' }] },
  })
})

test('the send answer keeps the seed shape; media shows safe fields only, a captioned document unwrapped', () => {
  const key = { remoteJid: '1@s.whatsapp.net', fromMe: true, id: 'X' }
  const text = mapSentMessage(
    { key, message: { extendedTextMessage: { text: 'hi', contextInfo: {} } }, messageTimestamp: 1 },
    '1@s.whatsapp.net',
    { kind: 'text', text: 'hi' },
  )
  assert.equal(
    JSON.stringify(text.answer),
    '{"key":{"remoteJid":"1@s.whatsapp.net","fromMe":true,"id":"X"},' +
      '"message":{"extendedTextMessage":{"text":"hi"}},"messageTimestamp":"1"}',
  )
  assert.equal(text.id, 'X')
  assert.equal(text.timestamp, '1')
  const document = mapSentMessage(
    {
      key,
      message: {
        documentWithCaptionMessage: {
          message: {
            documentMessage: {
              url: 'https://mmg/x',
              mediaKey: Buffer.from('k'),
              directPath: '/p',
              mimetype: 'application/pdf',
              fileName: 'a.pdf',
              caption: 'c',
              fileLength: 10,
            },
          },
        },
      },
      messageTimestamp: 1,
    },
    '1@s.whatsapp.net',
    {
      kind: 'document',
      media: Buffer.alloc(1),
      mimetype: 'application/pdf',
      fileName: 'a.pdf',
      caption: 'c',
    },
  )
  assert.deepEqual(document.answer.message, {
    documentMessage: { mimetype: 'application/pdf', fileName: 'a.pdf', caption: 'c', fileLength: '10' },
  })
  assert.equal(
    proto.Message.decode(document.content).documentWithCaptionMessage?.message?.documentMessage?.fileName,
    'a.pdf',
  )
})
