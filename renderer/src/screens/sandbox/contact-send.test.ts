import assert from 'node:assert/strict'
import { test } from 'node:test'
import { contactSendBody, EMPTY_CONTACT_DRAFT } from './contact-send'

const draft = { ...EMPTY_CONTACT_DRAFT, to: '15550001111' }

test('a text, with a given link preview, a reply and mentions', () => {
  assert.deepEqual(
    contactSendBody({
      ...draft,
      text: 'see https://example.org',
      linkUrl: 'https://example.org',
      linkTitle: 'Example',
      replyTo: ' 3EB0AB ',
      mentions: '15550002222, 15550003333',
    }),
    {
      to: '15550001111',
      text: 'see https://example.org',
      link_preview: { url: 'https://example.org', title: 'Example' },
      reply_to: '3EB0AB',
      mentions: ['15550002222', '15550003333'],
    },
  )
})

test('files go as base64, shown as a file (with name, caption, view once) or as a note or sticker', () => {
  const file = { base64: 'AAAA', mimetype: 'image/png', name: 'p.png' }
  assert.deepEqual(contactSendBody({ ...draft, kind: 'file', file, text: 'cap', viewOnce: true }), {
    to: '15550001111',
    media_base64: 'AAAA',
    mimetype: 'image/png',
    filename: 'p.png',
    caption: 'cap',
    view_once: true,
  })
  assert.deepEqual(contactSendBody({ ...draft, kind: 'voice_note', file, text: 'ignored' }), {
    to: '15550001111',
    media_base64: 'AAAA',
    mimetype: 'image/png',
    media_as: 'voice_note',
  })
  assert.throws(() => contactSendBody({ ...draft, kind: 'sticker' }), /Choose a file/)
})

test('a location and contact cards', () => {
  assert.deepEqual(
    contactSendBody({
      ...draft,
      kind: 'location',
      latitude: '48.8584',
      longitude: '2.2945',
      placeName: 'Tower',
    }),
    { to: '15550001111', location: { latitude: 48.8584, longitude: 2.2945, name: 'Tower' } },
  )
  assert.deepEqual(contactSendBody({ ...draft, kind: 'contacts', contacts: 'Ann Lee: +1 555 000 7777\n' }), {
    to: '15550001111',
    contacts: [{ name: 'Ann Lee', phone: '15550007777' }],
  })
  assert.throws(() => contactSendBody({ ...draft, kind: 'contacts', contacts: 'no number' }), /not a card/)
})
