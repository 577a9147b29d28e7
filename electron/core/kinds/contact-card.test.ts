import assert from 'node:assert/strict'
import { test } from 'node:test'
import { contactCardVcard, parseContactCard } from './contact-card'

test('a card built from a name and a number reads back as that name and number', () => {
  const vcard = contactCardVcard({ name: 'Alice, Example', phone: '15551230001' })
  assert.match(vcard, /^BEGIN:VCARD\r\nVERSION:3\.0\r\n/)
  assert.match(vcard, /WAID=15551230001:\+15551230001/)
  assert.deepEqual(parseContactCard(vcard), { name: 'Alice, Example', phones: ['15551230001'] })
})

test('a card as a phone writes it: numbers from waid, or the digits of the number without one', () => {
  const vcard = [
    'BEGIN:VCARD',
    'VERSION:3.0',
    'FN:Bob Builder',
    'TEL;type=CELL;type=VOICE;waid=15551230002:+1 555 123 0002',
    'TEL;type=WORK:+44 20 7946 0000',
    'END:VCARD',
  ].join('\n')
  assert.deepEqual(parseContactCard(vcard), { name: 'Bob Builder', phones: ['15551230002', '442079460000'] })
})

test('a card without a name takes the fallback; text that is not a vCard reads as nothing', () => {
  const nameless = 'BEGIN:VCARD\nVERSION:3.0\nTEL;waid=15551230003:+15551230003\nEND:VCARD'
  assert.deepEqual(parseContactCard(nameless, 'Carol'), { name: 'Carol', phones: ['15551230003'] })
  assert.equal(parseContactCard('just some text'), undefined)
  assert.equal(parseContactCard('BEGIN:VCALENDAR\nEND:VCALENDAR'), undefined)
})
