import assert from 'node:assert/strict'
import { test } from 'node:test'
import type { LoggedEventView } from '../../api/types'
import { laterTick, threadActs } from './thread-acts'

const CHAT = '15550001111@s.whatsapp.net'
const GROUP = '120363000000000001@g.us'

function event(name: string, data: Record<string, unknown>, instance = 'I1'): LoggedEventView {
  return { event: name, instance_id: instance, data: { chat: CHAT, ...data } } as unknown as LoggedEventView
}

test('ticks only move forward, and a failure always lands', () => {
  assert.equal(laterTick('read', 'delivered'), 'read')
  assert.equal(laterTick('sent', 'played'), 'played')
  assert.equal(laterTick('read', 'failed'), 'failed')
  assert.equal(laterTick(undefined, 'sent'), 'sent')
  assert.equal(laterTick('delivered', undefined), 'delivered')
  assert.equal(laterTick(undefined, undefined), undefined)
})

test('the acts on a chat’s messages: the latest reaction per reactor, the newest edit, deletions, tallies and ticks', () => {
  const acts = threadActs(
    [
      event('message.reaction', { target_id: 'M1', sender: 'ann', emoji: '👍' }),
      event('message.reaction', { target_id: 'M1', sender: 'ben', emoji: '❤️' }),
      event('message.reaction', { target_id: 'M1', sender: 'ann', emoji: '', removed: true }),
      event('message.edited', { target_id: 'M2', text: 'first edit' }),
      event('message.edited', { target_id: 'M2', text: 'second edit' }),
      event('message.deleted', { target_id: 'M3' }),
      event('poll.vote', { target_id: 'P1', tally: [{ option: 'Tea', votes: 2 }] }),
      event('message.status', { id: 'M4', status: 'read', recipient: null }),
      event('message.status', { id: 'M4', status: 'delivered', recipient: null }),
      event('message.edited', { target_id: 'M5', text: 'another instance' }, 'I2'),
      event('message.edited', { target_id: 'M6', text: 'another chat', chat: GROUP }),
    ],
    'I1',
    CHAT,
  )
  assert.deepEqual([...(acts.reactions.get('M1') ?? [])], [['ben', '❤️']])
  assert.equal(acts.edits.get('M2'), 'second edit')
  assert.deepEqual([...acts.deleted], ['M3'])
  assert.deepEqual(acts.tallies.get('P1'), [{ option: 'Tea', votes: 2 }])
  assert.equal(acts.ticks.get('M4'), 'read')
  assert.equal(acts.edits.has('M5'), false, 'another instance')
  assert.equal(acts.edits.has('M6'), false, 'another chat')
})

test('in a group, one member’s receipt is not the message’s tick', () => {
  const acts = threadActs(
    [
      event('message.status', { chat: GROUP, id: 'G1', status: 'read', recipient: 'ann@s.whatsapp.net' }),
      event('message.status', { chat: GROUP, id: 'G1', status: 'delivered', recipient: null }),
    ],
    'I1',
    GROUP,
  )
  assert.equal(acts.ticks.get('G1'), 'delivered')
})
