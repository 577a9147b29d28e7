import assert from 'node:assert/strict'
import { test } from 'node:test'
import { instanceLabel, noticeFor } from './instance-watch'

const account = {
  id: '15550001111:1@s.whatsapp.net',
  number: '15550001111',
  name: 'Front desk',
  lid: null,
  avatar: '',
}

test('a connected instance that loses its connection or its link is announced, naming the account and cause', () => {
  const lost = noticeFor('ABC', 'connected', { state: 'disconnected', cause: 'connection_lost', account })
  assert.deepEqual(lost?.title, 'Front desk (+15550001111) disconnected')
  assert.match(lost?.body ?? '', /connection lost/)
  const out = noticeFor('ABC', 'connecting', { state: 'logged_out', cause: 'device_removed', account: null })
  assert.equal(out?.title, 'Unlinked instance ABC… was logged out')
  assert.match(out?.body ?? '', /device removed/)
})

test('retries, the first status seen, and an operator’s own reinitialize stay quiet', () => {
  assert.equal(noticeFor('ABC', 'disconnected', { state: 'disconnected', cause: 'retrying', account }), null)
  assert.equal(
    noticeFor('ABC', 'connecting', { state: 'disconnected', cause: 'connection_lost', account }),
    null,
  )
  assert.equal(noticeFor('ABC', undefined, { state: 'logged_out', cause: 'device_removed', account }), null)
  assert.equal(noticeFor('ABC', 'connected', { state: 'logged_out', cause: 'reinitialized', account }), null)
  assert.equal(instanceLabel('ABCDEFGH', { account: { ...account, name: null } }), '+15550001111')
})
