import assert from 'node:assert/strict'
import { test } from 'node:test'
import { composerParams, draftFromQuery, EMPTY_DRAFT } from './composer-params'

const draft = { ...EMPTY_DRAFT, instanceId: 'I', number: '15551230002' }

test('a plain text is exactly the seed’s request', () => {
  assert.deepEqual(composerParams({ ...draft, message: 'Hello', latitude: '3', contacts: 'x' }), {
    instance_id: 'I',
    number: '15551230002',
    type: 'text',
    message: 'Hello',
  })
})

test('each kind sends only its own parameters', () => {
  assert.deepEqual(
    composerParams({
      ...draft,
      kind: 'location',
      message: 'ignored',
      latitude: '-33.8568',
      longitude: '151.2153',
      locationName: 'Opera House',
    }),
    {
      instance_id: 'I',
      number: '15551230002',
      type: 'location',
      latitude: -33.8568,
      longitude: 151.2153,
      location_name: 'Opera House',
    },
  )
  assert.deepEqual(
    composerParams({ ...draft, kind: 'contacts', contacts: 'Bob: +1 555 123 0003\n\n Eve:15551230004 ' }),
    {
      instance_id: 'I',
      number: '15551230002',
      type: 'contacts',
      contacts: ['Bob: +1 555 123 0003', 'Eve:15551230004'],
    },
  )
  assert.deepEqual(
    composerParams({ ...draft, kind: 'voice', mediaUrl: 'http://h/a.ogg', filename: 'x.pdf' }),
    {
      instance_id: 'I',
      number: '15551230002',
      type: 'voice',
      media_url: 'http://h/a.ogg',
    },
  )
  assert.deepEqual(
    composerParams({ ...draft, kind: 'media', mediaUrl: 'http://h/p.png', viewOnce: true, message: 'once' }),
    {
      instance_id: 'I',
      number: '15551230002',
      type: 'media',
      media_url: 'http://h/p.png',
      message: 'once',
      view_once: true,
    },
  )
})

test('a reply, mentions and a link preview are added when given', () => {
  assert.deepEqual(
    composerParams({
      ...draft,
      message: 'hi @15551230003',
      replyTo: ' 3EB0AB ',
      mentions: '15551230004, 15551230005',
      linkPreview: true,
    }),
    {
      instance_id: 'I',
      number: '15551230002',
      type: 'text',
      message: 'hi @15551230003',
      link_preview: true,
      reply_to: '3EB0AB',
      mentions: ['15551230004', '15551230005'],
    },
  )
})

test('a reply begun from the event log fills the instance, the chat and the quoted id', () => {
  const started = draftFromQuery(
    new URLSearchParams('instance_id=I&number=15551230002%40s.whatsapp.net&reply_to=3EB0AB'),
  )
  assert.equal(started.instanceId, 'I')
  assert.equal(started.number, '15551230002@s.whatsapp.net')
  assert.equal(started.replyTo, '3EB0AB')
  assert.equal(started.kind, 'text')
})
