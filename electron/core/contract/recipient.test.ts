import assert from 'node:assert/strict'
import { test } from 'node:test'
import { AppError } from '../errors'
import { parseRecipient } from './recipient'

test('phone numbers keep only their digits, tolerating +, spaces, dashes and parentheses', () => {
  for (const input of [
    '15551234567',
    '+1 555 123 4567',
    '+1 (555) 123-4567',
    ' 1-555-123-4567 ',
    '1.555.123.4567',
  ]) {
    assert.deepEqual(parseRecipient(input), {
      kind: 'phone',
      phone: '15551234567',
      jid: '15551234567@s.whatsapp.net',
    })
  }
})

test('chat ids are accepted for contacts, groups and LIDs', () => {
  assert.deepEqual(parseRecipient('15551234567@s.whatsapp.net'), {
    kind: 'phone',
    phone: '15551234567',
    jid: '15551234567@s.whatsapp.net',
  })
  assert.deepEqual(parseRecipient('15551234567@c.us').jid, '15551234567@s.whatsapp.net')
  assert.deepEqual(parseRecipient('15551234567:3@s.whatsapp.net').jid, '15551234567@s.whatsapp.net')
  assert.deepEqual(parseRecipient('120363041234567890@g.us'), {
    kind: 'group',
    jid: '120363041234567890@g.us',
  })
  assert.deepEqual(parseRecipient('15551234567-1600000000@G.US'), {
    kind: 'group',
    jid: '15551234567-1600000000@g.us',
  })
  assert.deepEqual(parseRecipient('123456789012345@lid'), { kind: 'lid', jid: '123456789012345@lid' })
})

test('malformed numbers are invalid_parameter naming number', () => {
  for (const input of [
    'abc',
    '123',
    '0155512345',
    '+1 555 123 4567 890 1234',
    '1555123456a',
    'x@s.whatsapp.net',
    'abc@g.us',
    '15551234567@example.com',
    '@g.us',
    '++15551234567',
  ]) {
    assert.throws(
      () => parseRecipient(input),
      (error: unknown) =>
        error instanceof AppError &&
        error.code === 'invalid_parameter' &&
        error.message.startsWith('number '),
      input,
    )
  }
})
