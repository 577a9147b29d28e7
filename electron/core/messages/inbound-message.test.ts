import assert from 'node:assert/strict'
import { test } from 'node:test'
import type { WaInboundMessage } from '../wa/wa-types'
import { toLinkdeskMessage } from './inbound-message'
import { sentAnswer } from './sent-answer'

const url = (id: string) => `http://127.0.0.1:1/api/v1/media/I/${id}`
const me = { number: '15550000001', lid: '99900000001:3@lid' }

function inbound(
  patch: Partial<Omit<WaInboundMessage, 'key'>> & { key?: Partial<WaInboundMessage['key']> },
): WaInboundMessage {
  const { key, ...rest } = patch
  return {
    key: {
      id: 'M1',
      chat: '15550000002@s.whatsapp.net',
      chatAlt: null,
      fromMe: false,
      participant: null,
      participantAlt: null,
      ...key,
    },
    timestamp: '1795248324',
    pushName: 'Alice',
    type: 'text',
    contentName: 'conversation',
    text: 'hi',
    caption: null,
    media: null,
    quoted: null,
    content: new Uint8Array(),
    ...rest,
  }
}

test('a LID-addressed 1:1 message shows the phone number as chat and sender, with the LID beside it', () => {
  const message = toLinkdeskMessage(
    inbound({ key: { chat: '88800000002@lid', chatAlt: '15550000002@s.whatsapp.net' } }),
    me,
    url,
  )
  assert.equal(message.chat, '15550000002@s.whatsapp.net')
  assert.equal(message.sender, '15550000002@s.whatsapp.net')
  assert.equal(message.sender_phone, '15550000002')
  assert.equal(message.sender_lid, '88800000002@lid')
  assert.equal(message.push_name, 'Alice')
})

test('a LID-only sender stays a LID, with no phone number invented', () => {
  const message = toLinkdeskMessage(inbound({ key: { chat: '88800000002@lid' } }), me, url)
  assert.equal(message.chat, '88800000002@lid')
  assert.equal(message.sender_phone, null)
  assert.equal(message.sender_lid, '88800000002@lid')
})

test('a group message names the group as chat and the member (device suffix dropped) as sender', () => {
  const message = toLinkdeskMessage(
    inbound({
      key: {
        chat: '120363000000000001@g.us',
        participant: '88800000003:2@lid',
        participantAlt: '15550000003@s.whatsapp.net',
      },
    }),
    me,
    url,
  )
  assert.equal(message.is_group, true)
  assert.equal(message.chat, '120363000000000001@g.us')
  assert.equal(message.sender, '15550000003@s.whatsapp.net')
  assert.equal(message.sender_lid, '88800000003@lid')
})

test('own messages name this account; media gets facts and a download URL; replies carry the quoted message', () => {
  const message = toLinkdeskMessage(
    inbound({
      key: { fromMe: true },
      type: 'document',
      contentName: 'documentMessage',
      text: null,
      caption: 'see attached',
      media: {
        mimetype: 'application/pdf',
        fileName: 'a.pdf',
        size: 10,
        seconds: null,
        ptt: false,
        sha256: 'ab',
      },
      quoted: { id: 'Q1', participant: '15550000002:1@s.whatsapp.net', type: 'text', text: 'send it' },
    }),
    me,
    url,
  )
  assert.equal(message.from_me, true)
  assert.equal(message.sender, '15550000001@s.whatsapp.net')
  assert.equal(message.sender_lid, '99900000001@lid')
  assert.deepEqual(message.media, {
    mimetype: 'application/pdf',
    size: 10,
    filename: 'a.pdf',
    sha256: 'ab',
    seconds: null,
    voice_note: false,
    download_url: url('M1'),
  })
  assert.deepEqual(message.quoted, {
    id: 'Q1',
    sender: '15550000002@s.whatsapp.net',
    type: 'text',
    text: 'send it',
  })
})

test('types Linkdesk does not map by kind are named from the protocol, else unknown', () => {
  assert.equal(
    toLinkdeskMessage(inbound({ type: 'other', contentName: 'locationMessage' }), me, url).type,
    'location',
  )
  assert.equal(
    toLinkdeskMessage(inbound({ type: 'other', contentName: 'pollCreationMessageV3' }), me, url).type,
    'poll',
  )
  assert.equal(
    toLinkdeskMessage(inbound({ type: 'other', contentName: 'somethingNew' }), me, url).type,
    'unknown',
  )
})

test('the send answer keeps the seed shape; media shows safe fields only, a captioned document unwrapped', () => {
  const base = {
    key: { remoteJid: '1@s.whatsapp.net', fromMe: true as const, id: 'X' },
    messageTimestamp: '1',
    content: new Uint8Array(),
  }
  const text = sentAnswer(
    { ...base, message: { extendedTextMessage: { text: 'hi', contextInfo: {} } } },
    { kind: 'text', text: 'hi' },
  )
  assert.deepEqual(text, {
    key: base.key,
    message: { extendedTextMessage: { text: 'hi' } },
    messageTimestamp: '1',
  })
  const document = sentAnswer(
    {
      ...base,
      message: {
        documentWithCaptionMessage: {
          message: {
            documentMessage: {
              url: 'https://mmg/x',
              mediaKey: 'k',
              directPath: '/p',
              mimetype: 'application/pdf',
              fileName: 'a.pdf',
              caption: 'c',
              fileLength: '10',
            },
          },
        },
      },
    },
    {
      kind: 'document',
      media: Buffer.alloc(1),
      mimetype: 'application/pdf',
      fileName: 'a.pdf',
      caption: 'c',
    },
  )
  assert.deepEqual(document.message, {
    documentMessage: { mimetype: 'application/pdf', fileName: 'a.pdf', caption: 'c', fileLength: '10' },
  })
})
