import assert from 'node:assert/strict'
import { test } from 'node:test'
import type { InstanceSummary } from '../../api/types'
import { arranged, countsInWords, matchesSearch, reconnectable, standingOf } from './instance-overview'

const account = { id: '15551234567:3@s.whatsapp.net', number: '15551234567', name: 'Alice', avatar: '' }
const instance = (fields: Partial<InstanceSummary>): InstanceSummary =>
  ({
    instance_id: 'ABCDEF0123456789ABCDEF01',
    name: null,
    account: null,
    linked: false,
    state: 'idle',
    cause: 'created',
    created_at: 1,
    ...fields,
  }) as unknown as InstanceSummary

test('the counts name each state an operator acts on, and leave out those with none', () => {
  const list = [
    ...Array.from({ length: 48 }, () => instance({ state: 'connected', linked: true })),
    instance({ state: 'idle' }),
    instance({ state: 'qr', cause: 'waiting_for_scan' }),
    instance({ state: 'disconnected', cause: 'connection_replaced', linked: true }),
  ]
  assert.equal(countsInWords(list), '48 connected · 2 need a scan · 1 replaced')
  assert.equal(countsInWords([instance({ state: 'logged_out' })]), '1 needs a scan')
  assert.equal(standingOf(instance({ state: 'disconnected', cause: 'retrying' })), 'disconnected')
})

test('search matches the name, the account name, its number with or without + and spaces, and the id', () => {
  const alice = instance({ name: 'Support', account, linked: true })
  assert.ok(matchesSearch(alice, 'supp'))
  assert.ok(matchesSearch(alice, 'ALICE'))
  assert.ok(matchesSearch(alice, '+1 555 123'))
  assert.ok(matchesSearch(alice, 'cdef0123'))
  assert.ok(matchesSearch(alice, ' '))
  assert.equal(matchesSearch(alice, 'Bob'), false)
  assert.equal(matchesSearch(instance({}), '555'), false, 'no account: no number to match')
})

test('the filter keeps one state, sorting orders by name (unnamed last), state or age', () => {
  const list = [
    instance({ instance_id: 'C', name: 'b shop', created_at: 3, state: 'connected', linked: true }),
    instance({ instance_id: 'A', name: null, created_at: 1 }),
    instance({ instance_id: 'B', name: 'A shop', created_at: 2, state: 'disconnected', linked: true }),
  ]
  const ids = (sort: 'name' | 'state' | 'newest' | 'oldest', standing: 'scan' | null = null) =>
    arranged(list, { search: '', standing, sort }).map((item) => item.instance_id)
  assert.deepEqual(ids('name'), ['B', 'C', 'A'])
  assert.deepEqual(ids('state'), ['C', 'B', 'A'])
  assert.deepEqual(ids('newest'), ['C', 'B', 'A'])
  assert.deepEqual(ids('oldest'), ['A', 'B', 'C'])
  assert.deepEqual(ids('oldest', 'scan'), ['A'])
  assert.deepEqual(
    list.filter(reconnectable).map((item) => item.instance_id),
    ['B'],
  )
})
