import assert from 'node:assert/strict'
import { test } from 'node:test'
import { AppError } from '../../errors'
import {
  CONTENT_READERS,
  CONTENT_WRITERS,
  contentFields,
  type ContentReading,
  documentedSendFields,
  KINDS,
  kindsForWindow,
  SEND_FIELDS,
  SEND_KINDS,
  SEND_TYPES,
} from '.'

function read(field: string, inner: unknown): ContentReading {
  const reader = CONTENT_READERS[field]?.read as ((inner: unknown) => ContentReading) | undefined
  assert.ok(reader, `${field} is read by a kind`)
  return reader(inner)
}

test('every kind is named once, and each protocol field and content kind is read or written by one kind only', () => {
  const names = KINDS.map((kind) => kind.name)
  assert.equal(new Set(names).size, names.length)
  const reads = KINDS.flatMap((kind) => Object.keys(kind.reads ?? {}))
  assert.equal(new Set(reads).size, reads.length)
  const writes = KINDS.flatMap((kind) => Object.keys(kind.writes ?? {}))
  assert.equal(new Set(writes).size, writes.length)
  assert.deepEqual(Object.keys(CONTENT_WRITERS).sort(), [...writes].sort())
})

test('send_message takes the types in the order the API lists them, and each parameter names types that exist', () => {
  assert.deepEqual(SEND_TYPES, ['text', 'media', 'voice', 'video_note', 'sticker', 'location', 'contacts'])
  for (const [name, field] of Object.entries(SEND_FIELDS)) {
    for (const type of field.types) assert.ok(SEND_KINDS.has(type), `${name} names ${type}`)
  }
  for (const [type, kind] of SEND_KINDS) {
    for (const name of kind.required ?? [])
      assert.ok(SEND_FIELDS[name]?.types.includes(type), `${type} needs ${name}`)
  }
})

test('the kinds’ parameters are documented where the API has always listed them', () => {
  const fields = documentedSendFields(
    { number: { type: 'string', description: '' }, type: { type: 'string', description: '' } },
    { reply_to: { type: 'string', description: '' }, mentions: { type: 'list', description: '' } },
  )
  assert.deepEqual(Object.keys(fields), [
    'number',
    'type',
    'message',
    'media_url',
    'file',
    'filename',
    'media_base64',
    'view_once',
    'latitude',
    'longitude',
    'location_name',
    'address',
    'contacts',
    'reply_to',
    'mentions',
    'link_preview',
  ])
  assert.match(
    SEND_FIELDS.media_base64?.description ?? '',
    /^For media, voice, video_note and sticker, instead/,
  )
})

test('a form field sent with another, or required with it, names a field of the same form; composer fields are parameters', () => {
  const { composer, sandbox } = kindsForWindow()
  for (const form of [...composer, ...sandbox]) {
    const names = new Set(form.fields.map((field) => field.name))
    for (const field of form.fields) {
      if (field.with) assert.ok(names.has(field.with), `${form.kind}: ${field.name} with ${field.with}`)
      if (field.requiredWith) assert.ok(names.has(field.requiredWith))
    }
  }
  for (const form of composer) {
    assert.ok(SEND_KINDS.has(form.kind))
    for (const field of form.fields) assert.ok(SEND_FIELDS[field.param], `${form.kind}: ${field.param}`)
  }
})

test('media facts read a 64-bit length, a hash as hex, and the flag a kind adds; a reading fills the other fields with null', () => {
  const reading = read('audioMessage', {
    mimetype: 'audio/ogg',
    fileLength: { toNumber: () => 4096 },
    fileSha256: Uint8Array.from([1, 255]),
    seconds: 3,
    ptt: true,
  })
  assert.deepEqual(reading.media, {
    mimetype: 'audio/ogg',
    size: 4096,
    filename: null,
    sha256: '01ff',
    seconds: 3,
    voice_note: true,
    video_note: false,
    download_url: null,
  })
  assert.deepEqual(contentFields(reading), {
    text: null,
    caption: null,
    media: reading.media,
    location: null,
    contacts: null,
    link_preview: null,
    group_invite: null,
  })
})

test('a live location reads without name or address; a contact card reads its name and numbers', () => {
  assert.deepEqual(read('liveLocationMessage', { degreesLatitude: 1.5, degreesLongitude: -2 }).location, {
    latitude: 1.5,
    longitude: -2,
    name: null,
    address: null,
  })
  const vcard =
    'BEGIN:VCARD\nVERSION:3.0\nFN:Ann Lee\nTEL;type=CELL;waid=15550007777:+1 555 000 7777\nEND:VCARD'
  const [card] = read('contactsArrayMessage', { contacts: [{ displayName: 'Ann', vcard }] }).contacts ?? []
  assert.deepEqual({ name: card?.name, phones: card?.phones }, { name: 'Ann Lee', phones: ['15550007777'] })
})

test('a location out of range and a malformed card are refused with their codes before anything is built', () => {
  const location = SEND_KINDS.get('location')
  assert.throws(
    () => location?.validate?.({ latitude: 91, longitude: 0 }),
    (error: unknown) => error instanceof AppError && error.code === 'invalid_location',
  )
  const contacts = SEND_KINDS.get('contacts')
  assert.throws(
    () => contacts?.validate?.({ contacts: ['no number'] }),
    (error: unknown) =>
      error instanceof AppError &&
      error.code === 'invalid_parameter' &&
      error.message === 'contacts: "no number" must be <name>:<number>, such as "Alice Smith:+15551234567".',
  )
})

test('a kind writes the plain content the network library takes', () => {
  const write = (content: { kind: string; [field: string]: unknown }) =>
    (CONTENT_WRITERS[content.kind]?.write as (content: unknown) => unknown)(content)
  assert.deepEqual(write({ kind: 'location', latitude: 1, longitude: 2 }), {
    location: { degreesLatitude: 1, degreesLongitude: 2, name: undefined, address: undefined },
  })
  const media = Buffer.from('x')
  assert.deepEqual(write({ kind: 'voice', media, mimetype: 'audio/ogg' }), {
    audio: media,
    mimetype: 'audio/ogg',
    ptt: true,
  })
})
