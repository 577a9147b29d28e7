import assert from 'node:assert/strict'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, test } from 'node:test'
import { openDatabase } from '../store/database'
import { LmdbMessageStore } from './message-store'
import type { LinkdeskMessage } from './message-types'

const dirs: string[] = []
after(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true })
})

function open(now: () => number = Date.now) {
  const dir = mkdtempSync(join(tmpdir(), 'linkdesk-messages-'))
  dirs.push(dir)
  const root = openDatabase(dir)
  return { root, store: new LmdbMessageStore(root, dir, { now }), dir }
}

function message(id: string): LinkdeskMessage {
  return {
    id,
    chat: '15551234567@s.whatsapp.net',
    is_group: false,
    from_me: false,
    sender: '15551234567@s.whatsapp.net',
    sender_phone: '15551234567',
    sender_lid: null,
    push_name: null,
    type: 'text',
    text: 'hi',
    caption: null,
    media: null,
    view_once: false,
    location: null,
    contacts: null,
    mentions: [],
    link_preview: null,
    quoted: null,
    timestamp: '1795248324',
  }
}

test('an incoming message is stored once, even when it arrives again live and offline', async () => {
  const { store, root } = open()
  const [first, again] = await Promise.all([
    store.addIfNew('i1', { direction: 'in', message: message('A') }),
    store.addIfNew('i1', { direction: 'in', message: message('A') }),
  ])
  assert.deepEqual([first, again], [true, false])
  assert.equal(await store.addIfNew('i1', { direction: 'in', message: message('A') }), false)
  assert.equal(await store.addIfNew('i2', { direction: 'in', message: message('A') }), true)
  assert.equal((await store.get('i1', 'A'))?.message.text, 'hi')
  await root.close()
})

test('sent content is found by id for retries, undefined when unknown, and kept across a reopen', async () => {
  const { store, root, dir } = open()
  await store.addSent('i1', {
    message: { ...message('S1'), from_me: true },
    content: new Uint8Array([1, 2, 3]),
  })
  assert.deepEqual(await store.content('i1', 'S1'), new Uint8Array([1, 2, 3]))
  assert.equal(await store.content('i1', 'nope'), undefined)
  assert.equal(await store.content('i2', 'S1'), undefined)
  await root.close()
  const reopened = new LmdbMessageStore(openDatabase(dir), dir)
  assert.deepEqual(await reopened.content('i1', 'S1'), new Uint8Array([1, 2, 3]))
})

test('statuses only move forward; failed always lands', async () => {
  const { store, root } = open()
  await store.addSent('i1', { message: message('S') })
  assert.equal(await store.advanceStatus('i1', 'S', 'sent'), true)
  assert.equal(await store.advanceStatus('i1', 'S', 'read'), true)
  assert.equal(await store.advanceStatus('i1', 'S', 'delivered'), false)
  assert.equal(await store.statusOf('i1', 'S'), 'read')
  assert.equal(await store.advanceStatus('i1', 'unknown', 'read'), false)
  await root.close()
})

test('a status is a record of its own: the message is not rewritten, and both survive a reopen and go together', async () => {
  const { store, root, dir } = open()
  await store.addSent('i1', { message: message('S'), content: new Uint8Array([1, 2, 3]) })
  const before = await store.get('i1', 'S')
  await store.advanceStatus('i1', 'S', 'delivered')
  assert.deepEqual(await store.get('i1', 'S'), before, 'the message record is untouched')
  assert.equal((await store.get('i1', 'S'))?.status, undefined)
  await root.close()

  const reopenedRoot = openDatabase(dir)
  const reopened = new LmdbMessageStore(reopenedRoot, dir)
  assert.equal(await reopened.statusOf('i1', 'S'), 'delivered')
  assert.equal(await reopened.advanceStatus('i1', 'S', 'sent'), false, 'still only forward after a reopen')
  await reopened.dropInstance('i1')
  assert.equal(await reopened.statusOf('i1', 'S'), undefined)
  await reopenedRoot.close()
})

test('a status an earlier version kept inside the message still counts', async () => {
  const { store, root } = open()
  await store.addSent('i1', { message: message('OLD'), status: 'read' })
  assert.equal(await store.statusOf('i1', 'OLD'), 'read')
  assert.equal(await store.advanceStatus('i1', 'OLD', 'delivered'), false)
  assert.equal(await store.advanceStatus('i1', 'OLD', 'played'), true)
  assert.equal(await store.statusOf('i1', 'OLD'), 'played')
  await root.close()
})

test('media is saved and read back; the sweep removes messages and media past the retention (at least 14 days)', async () => {
  let now = 0
  const { store, root } = open(() => now)
  await store.addIfNew('i1', { direction: 'in', message: message('M') })
  await store.saveMedia('i1', 'M', Buffer.from('bytes'))
  assert.equal((await store.readMedia('i1', 'M'))?.toString(), 'bytes')
  now = 13 * 24 * 60 * 60_000
  assert.equal(await store.sweep(), 0)
  now = 31 * 24 * 60 * 60_000
  assert.equal(await store.sweep(), 1)
  assert.equal(await store.get('i1', 'M'), undefined)
  assert.equal(await store.readMedia('i1', 'M'), undefined)
  await root.close()
})
