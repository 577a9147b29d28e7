import assert from 'node:assert/strict'
import { test } from 'node:test'
import { quotedOf } from './message-mapping'

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
    participant: '15550000002@s.whatsapp.net',
    type: 'image',
    text: 'this one?',
  })
})

test('a message that replies to nothing has no quoted message', () => {
  assert.equal(quotedOf({ conversation: 'hello' }), null)
  assert.equal(quotedOf({ extendedTextMessage: { text: 'hi', contextInfo: {} } }), null)
})
