import assert from 'node:assert/strict'
import { test } from 'node:test'
import { SAMPLE_MESSAGE } from '../../../e2e/sample-message'
import { messageSummary } from './message-summary'

const message = (fields: Record<string, unknown>) => ({
  ...SAMPLE_MESSAGE,
  chat: '15551230002@s.whatsapp.net',
  text: null,
  ...fields,
})

test('each kind of message reads as a person would name it', () => {
  assert.equal(messageSummary(message({ text: 'Hello' })), 'Hello')
  assert.equal(
    messageSummary(message({ type: 'audio', media: { voice_note: true, seconds: 4 } })),
    'voice note 4 s',
  )
  assert.equal(
    messageSummary(message({ type: 'video', media: { video_note: true, seconds: null } })),
    'video note',
  )
  assert.equal(
    messageSummary(message({ type: 'image', caption: 'look', view_once: true, media: {} })),
    '[view-once image] look',
  )
  assert.equal(messageSummary(message({ type: 'sticker', media: {} })), '[sticker]')
  assert.equal(
    messageSummary(
      message({
        type: 'location',
        location: { latitude: -33.8568, longitude: 151.2153, name: 'Opera House' },
      }),
    ),
    'location Opera House (-33.8568, 151.2153)',
  )
  assert.equal(
    messageSummary(message({ type: 'contact', contacts: [{ name: 'Bob', phones: ['15550400003'] }] })),
    'contact Bob 15550400003',
  )
})

test('a reply and mentions are marked; other events are not messages', () => {
  assert.equal(
    messageSummary(message({ text: 'Yes', quoted: { id: 'Q' }, mentions: ['1@s.whatsapp.net'] })),
    '↩ Yes (@1)',
  )
  assert.equal(messageSummary({ state: 'connected' }), undefined)
  assert.equal(messageSummary({ status: 'read', id: 'X' }), undefined)
})

test('reactions, edits and deletes name the message they act on', () => {
  const act = { id: 'A1', chat: '1@s.whatsapp.net', target_id: 'T1' }
  assert.equal(messageSummary({ ...act, emoji: '👍', removed: false }), 'reacted 👍 to T1')
  assert.equal(messageSummary({ ...act, emoji: '', removed: true }), 'took back a reaction to T1')
  assert.equal(messageSummary({ ...act, text: 'Meeting at 3 pm' }), 'edited T1: Meeting at 3 pm')
  assert.equal(messageSummary(act), 'deleted T1 for everyone')
  assert.equal(
    messageSummary({ ...act, options: ['Monday', 'Friday'], tally: [] }),
    'voted Monday, Friday on poll T1',
  )
})
