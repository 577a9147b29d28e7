import assert from 'node:assert/strict'
import { test } from 'node:test'
import { SAMPLE_MESSAGE } from '../contract/event-catalogue'
import type { LinkdeskMessage } from '../contract/message'
import { LmdbMessageStore } from './lmdb/messages'
import type { MessageStore } from './message-store'
import { PostgresMessageStore } from './postgres/messages'
import { eachBackend, openOn, type PerBackend, type Storage } from '../testing/backends'

/** A store on fresh storage; `reopen` opens it again on the same storage (a restart). */
interface Opened {
  store: MessageStore
  reopen(): Promise<Opened>
  close(): Promise<void>
}

type Opener = (now?: () => number) => Promise<Opened>

const messageStore = (now: () => number): PerBackend<MessageStore> => ({
  lmdb: ({ db, dataDir }) => new LmdbMessageStore(db, dataDir, { now }),
  postgres: ({ pool }) => new PostgresMessageStore(pool, { now }),
})

function message(id: string): LinkdeskMessage {
  return {
    ...SAMPLE_MESSAGE,
    id,
    chat: '15551234567@s.whatsapp.net',
    sender: '15551234567@s.whatsapp.net',
    sender_phone: '15551234567',
    sender_lid: null,
    push_name: null,
    text: 'hi',
    mentions: [],
    timestamp: '1795248324',
  }
}

/** The same tests for each store. */
function messageStoreTests(name: string, open: Opener) {
  test(`${name}: an incoming message is stored once, even when it arrives again live and offline`, async () => {
    const { store, close } = await open()
    const [first, again] = await Promise.all([
      store.addIfNew('i1', { direction: 'in', message: message('A') }),
      store.addIfNew('i1', { direction: 'in', message: message('A') }),
    ])
    assert.deepEqual([first, again], [true, false])
    assert.equal(await store.addIfNew('i1', { direction: 'in', message: message('A') }), false)
    assert.equal(await store.addIfNew('i2', { direction: 'in', message: message('A') }), true)
    assert.equal((await store.get('i1', 'A'))?.message.text, 'hi')
    await close()
  })

  test(`${name}: sent content is found by id for retries, undefined when unknown, and kept across a reopen`, async () => {
    const { store, reopen, close } = await open()
    await store.addSent('i1', {
      message: { ...message('S1'), from_me: true },
      content: new Uint8Array([1, 2, 3]),
    })
    assert.deepEqual(await store.content('i1', 'S1'), new Uint8Array([1, 2, 3]))
    assert.equal(await store.content('i1', 'nope'), undefined)
    assert.equal(await store.content('i2', 'S1'), undefined)
    await close()
    const reopened = await reopen()
    assert.deepEqual(await reopened.store.content('i1', 'S1'), new Uint8Array([1, 2, 3]))
    await reopened.close()
  })

  test(`${name}: statuses only move forward; failed always lands`, async () => {
    const { store, close } = await open()
    await store.addSent('i1', { message: message('S') })
    assert.equal(await store.advanceStatus('i1', 'S', 'sent'), true)
    assert.equal(await store.advanceStatus('i1', 'S', 'read'), true)
    assert.equal(await store.advanceStatus('i1', 'S', 'delivered'), false)
    assert.equal(await store.statusOf('i1', 'S'), 'read')
    assert.equal(await store.advanceStatus('i1', 'unknown', 'read'), false)
    await close()
  })

  test(`${name}: a status is a record of its own: the message is not rewritten, and both survive a reopen and go together`, async () => {
    const { store, reopen, close } = await open()
    await store.addSent('i1', { message: message('S'), content: new Uint8Array([1, 2, 3]) })
    const before = await store.get('i1', 'S')
    await store.advanceStatus('i1', 'S', 'delivered')
    assert.deepEqual(await store.get('i1', 'S'), before, 'the message record is untouched')
    assert.equal((await store.get('i1', 'S'))?.status, undefined)
    await close()

    const reopened = await reopen()
    assert.equal(await reopened.store.statusOf('i1', 'S'), 'delivered')
    assert.equal(
      await reopened.store.advanceStatus('i1', 'S', 'sent'),
      false,
      'still only forward after a reopen',
    )
    await reopened.store.dropInstance('i1')
    assert.equal(await reopened.store.statusOf('i1', 'S'), undefined)
    await reopened.close()
  })

  test(`${name}: a status an earlier version kept inside the message still counts`, async () => {
    const { store, close } = await open()
    await store.addSent('i1', { message: message('OLD'), status: 'read' })
    assert.equal(await store.statusOf('i1', 'OLD'), 'read')
    assert.equal(await store.advanceStatus('i1', 'OLD', 'delivered'), false)
    assert.equal(await store.advanceStatus('i1', 'OLD', 'played'), true)
    assert.equal(await store.statusOf('i1', 'OLD'), 'played')
    await close()
  })

  test(`${name}: a status is judged against the message the caller read, which the store does not read again`, async () => {
    const { store, close } = await open()
    await store.addSent('i1', { message: message('K') })
    const read = await store.get('i1', 'K')
    assert.ok(read)
    // The caller's copy says read (a status kept inside the record): delivered is then no step forward.
    assert.equal(await store.advanceStatus('i1', 'K', 'delivered', { ...read, status: 'read' }), false)
    assert.equal(await store.statusOf('i1', 'K'), undefined)
    assert.equal(await store.advanceStatus('i1', 'K', 'delivered', read), true)
    assert.equal(await store.statusOf('i1', 'K'), 'delivered')
    await close()
  })

  test(`${name}: the statuses of a page of messages come in one read: recorded ones, and one an earlier version kept inside the message`, async () => {
    const { store, reopen, close } = await open()
    const sent = (id: string) => ({ ...message(id), from_me: true })
    await store.addSent('i1', { message: sent('P1') })
    await store.addSent('i1', { message: sent('P2') })
    await store.addSent('i1', { message: sent('P3'), status: 'delivered' })
    assert.equal(await store.advanceStatus('i1', 'P1', 'read'), true)
    await close()
    const reopened = await reopen()
    const page = await reopened.store.chatPage('i1', message('P1').chat, 10)
    assert.deepEqual(
      Object.fromEntries(await reopened.store.statusesOf('i1', page)),
      { P1: 'read', P3: 'delivered' },
      'P2 has no status yet',
    )
    assert.deepEqual(
      await reopened.store.statusesOf('i2', page),
      new Map([['P3', 'delivered']]),
      'per instance',
    )
    assert.deepEqual(await reopened.store.statusesOf('i1', []), new Map())
    await reopened.close()
  })

  test(`${name}: a search finds the chats whose messages' text or caption holds the words, case-insensitive, each once`, async () => {
    const { store, reopen, close } = await open()
    const in_ = (id: string, chat: string, fields: Partial<LinkdeskMessage>) =>
      store.addIfNew('i1', { direction: 'in', message: { ...message(id), chat, sender: chat, ...fields } })
    const ann = '15550000001@s.whatsapp.net'
    const ben = '15550000002@s.whatsapp.net'
    const group = '120363000000000001@g.us'
    await in_('S1', ann, { text: 'The Invoice is attached' })
    await in_('S2', ann, { text: 'second invoice, same chat' })
    await in_('S3', ben, { type: 'image', text: null, caption: 'photo of the INVOICE' })
    await in_('S4', group, { text: 'nothing to see' })
    await store.addIfNew('i2', { direction: 'in', message: { ...message('S5'), text: 'invoice elsewhere' } })
    const found = async (on: MessageStore, text: string, limit = 10) =>
      (await on.searchChats('i1', text, limit)).sort()
    assert.deepEqual(await found(store, 'invoice'), [ann, ben], 'the uncommitted writes are searched too')
    await close()
    const reopened = await reopen()
    assert.deepEqual(await found(reopened.store, 'iNvOiCe'), [ann, ben])
    assert.deepEqual(await found(reopened.store, 'to see'), [group])
    assert.deepEqual(await found(reopened.store, '%'), [], 'no wildcard of its own')
    assert.deepEqual(await found(reopened.store, 'absent words'), [])
    assert.equal((await reopened.store.searchChats('i1', 'invoice', 1)).length, 1, 'at most the limit')
    await reopened.close()
  })

  test(`${name}: media is saved and read back; the sweep removes messages and media past the retention (at least 14 days)`, async () => {
    let now = 0
    const { store, close } = await open(() => now)
    await store.addIfNew('i1', { direction: 'in', message: message('M') })
    await store.saveMedia('i1', 'M', Buffer.from('bytes'))
    assert.equal((await store.readMedia('i1', 'M'))?.toString(), 'bytes')
    now = 13 * 24 * 60 * 60_000
    assert.equal(await store.sweep(), 0)
    now = 31 * 24 * 60 * 60_000
    assert.equal(await store.sweep(), 1)
    assert.equal(await store.get('i1', 'M'), undefined)
    assert.equal(await store.readMedia('i1', 'M'), undefined)
    await close()
  })

  test(`${name}: removing a chat's messages up to a time takes their statuses and media, finds them by the chat's other id, and leaves other chats`, async () => {
    const { store, reopen, close } = await open()
    const lid = '48213557260001@lid'
    const at = (id: string, timestamp: string, chat = message(id).chat) => ({
      ...message(id),
      chat,
      timestamp,
    })
    await store.addIfNew('i1', {
      direction: 'in',
      message: at('R1', '1795248001'),
      networkKey: {
        id: 'R1',
        chat: lid,
        chatAlt: message('R1').chat,
        fromMe: false,
        participant: null,
        participantAlt: null,
      },
    })
    await store.addSent('i1', { message: { ...at('R2', '1795248002'), from_me: true } })
    await store.addIfNew('i1', { direction: 'in', message: at('R3', '1795248003') })
    await store.addIfNew('i1', {
      direction: 'in',
      message: at('B1', '1795248002', '15557654321@s.whatsapp.net'),
    })
    await store.saveMedia('i1', 'R1', Buffer.from('bytes'))
    assert.equal(await store.advanceStatus('i1', 'R2', 'read'), true)

    assert.equal(await store.removeChat('i1', lid, 1795248001), 1, 'found by its other id, up to the time')
    assert.equal(await store.get('i1', 'R1'), undefined)
    assert.equal(await store.readMedia('i1', 'R1'), undefined)
    assert.equal((await store.chat('i1', message('R1').chat))?.messages, 2)

    assert.equal(await store.removeChat('i1', message('R1').chat, 1795248003), 2)
    assert.equal(await store.get('i1', 'R2'), undefined)
    assert.equal(await store.statusOf('i1', 'R2'), undefined)
    assert.equal(await store.chat('i1', message('R1').chat), undefined, 'the chat leaves the index')
    assert.deepEqual(await store.chatPage('i1', message('R1').chat, 10), [])
    assert.deepEqual(
      (await store.chats('i1', 10)).map(({ chat }) => chat),
      ['15557654321@s.whatsapp.net'],
    )
    assert.equal(await store.removeChat('i1', message('R1').chat, 1795248003), 0)
    assert.equal(await store.removeChat('i2', '15557654321@s.whatsapp.net', 1795248003), 0, 'per instance')

    // A new message brings the chat back.
    await store.addIfNew('i1', { direction: 'in', message: at('R4', '1795248004') })
    await close()
    const reopened = await reopen()
    assert.deepEqual(
      (await reopened.store.chatPage('i1', message('R1').chat, 10)).map(({ message }) => message.id),
      ['R4'],
    )
    assert.equal((await reopened.store.chat('i1', '15557654321@s.whatsapp.net'))?.messages, 1)
    await reopened.close()
  })
}

eachBackend((backend) =>
  messageStoreTests(backend.kind, async (now = Date.now) => {
    const at = (storage: Storage): Opened => ({
      store: openOn(storage, messageStore(now)),
      reopen: async () => at(await backend.restart(storage)),
      close: async () => undefined,
    })
    return at(await backend.fresh())
  }),
)
