import assert from 'node:assert/strict'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { test } from 'node:test'
import { runner } from 'node-pg-migrate'
import pg from 'pg'
import { SAMPLE_MESSAGE } from '../contract/event-catalogue'
import type { LinkdeskMessage } from '../contract/message'
import { openDatabase } from './lmdb/database'
import { LmdbMessageStore } from './lmdb/messages'
import {
  chatIdsOf,
  comparePositions,
  type MessagePosition,
  type MessageStore,
  positionOf,
  type StoredMessage,
} from './message-store'
import { migrate } from './postgres/schema'
import { PostgresMessageStore } from './postgres/messages'
import { silentLogger } from '../logger'
import { eachBackend, openOn, type PerBackend } from '../testing/backends'
import { postgresSuite } from '../testing/postgres-server'

const DAY = 24 * 60 * 60_000

const messageStore = (now: () => number): PerBackend<MessageStore> => ({
  lmdb: ({ db, dataDir }) => new LmdbMessageStore(db, dataDir, { now }),
  postgres: ({ pool }) => new PostgresMessageStore(pool, { now }),
})

/** A contact by number: its chat id, LID and name. */
const person = (n: number) => ({
  chat: `1555000${String(n).padStart(4, '0')}@s.whatsapp.net`,
  phone: `1555000${String(n).padStart(4, '0')}`,
  lid: `9000${n}@lid`,
  name: `Person ${n}`,
})

/**
 * A mixed history: 1:1 chats (some under a LID with the phone chat as the other id), groups with several
 * writers, messages sent by the account, timestamps that tie within a second; deterministic.
 */
function history(count: number): Array<{ direction: 'in' | 'out'; message: LinkdeskMessage; alt?: string }> {
  let seed = 7
  const next = (n: number) => (seed = (seed * 48271) % 2147483647) % n
  return Array.from({ length: count }, (_, i) => {
    const group = next(4) === 0
    const who = person(next(9))
    const fromMe = next(3) === 0
    const chat = group ? `12036300000${next(3)}@g.us` : who.chat
    const message: LinkdeskMessage = {
      ...SAMPLE_MESSAGE,
      id: `M${String(i).padStart(4, '0')}${next(2) ? 'a' : 'B'}`,
      chat: !group && next(4) === 0 ? who.lid : chat,
      is_group: group,
      from_me: fromMe,
      sender: fromMe ? '15559999999@s.whatsapp.net' : who.chat,
      sender_phone: fromMe ? '15559999999' : who.phone,
      sender_lid: fromMe ? null : who.lid,
      push_name: fromMe || next(3) === 0 ? null : who.name,
      text: `text ${i}`,
      mentions: [],
      timestamp: String(1795250000 + next(40)),
    }
    const alt = message.chat === who.lid ? who.chat : undefined
    return { direction: fromMe ? 'out' : 'in', message, ...(alt && { alt }) }
  })
}

async function store(target: MessageStore, instanceId: string, item: ReturnType<typeof history>[number]) {
  const networkKey = item.alt
    ? {
        id: item.message.id,
        chat: item.message.chat,
        chatAlt: item.alt,
        fromMe: item.message.from_me,
        participant: null,
        participantAlt: null,
      }
    : undefined
  const entry = { message: item.message, ...(networkKey && { networkKey }) }
  if (item.direction === 'out') await target.addSent(instanceId, entry)
  else assert.equal(await target.addIfNew(instanceId, { ...entry, direction: 'in' }), true)
}

/** What the chats must be, worked out from the messages themselves (as every read did before the index). */
function expectedChats(messages: StoredMessage[]) {
  const byChat = new Map<string, StoredMessage[]>()
  for (const stored of messages)
    byChat.set(stored.message.chat, [...(byChat.get(stored.message.chat) ?? []), stored])
  return [...byChat]
    .map(([chat, list]) => {
      const last = list.reduce((a, b) => (comparePositions(positionOf(a), positionOf(b)) > 0 ? a : b))
      const unread = list.filter((stored) => stored.direction === 'in' && !stored.read).length
      return { chat, last: last.message.id, unread, messages: list.length, at: positionOf(last) }
    })
    .sort((a, b) => comparePositions(b.at, a.at))
    .map(({ at: _at, ...chat }) => chat)
}

async function everyChat(target: MessageStore, instanceId: string, limit: number) {
  const found: Array<{ chat: string; last: string; unread: number; messages: number }> = []
  let before: MessagePosition | undefined
  for (;;) {
    const page = await target.chats(instanceId, limit, before)
    found.push(
      ...page.map(({ chat, last, unread, messages }) => ({ chat, last: last.message.id, unread, messages })),
    )
    if (page.length < limit) return found
    before = positionOf((page.at(-1) as { last: StoredMessage }).last)
  }
}

async function everyMessage(target: MessageStore, instanceId: string, chat: string, limit: number) {
  const ids: string[] = []
  let before: MessagePosition | undefined
  for (;;) {
    const page = await target.chatPage(instanceId, chat, limit, before)
    ids.push(...page.map((stored) => stored.message.id))
    if (page.length < limit) return ids
    before = positionOf(page.at(-1) as StoredMessage)
  }
}

/** Checks every read of the index against what the stored messages say. */
async function assertIndexMatches(target: MessageStore, instanceId: string, ids: Iterable<string>) {
  const messages = await Promise.all(
    [...ids].map(async (id) => (await target.get(instanceId, id)) as StoredMessage),
  )
  assert.deepEqual(await everyChat(target, instanceId, 4), expectedChats(messages))
  const chatIds = new Set(messages.flatMap(chatIdsOf))
  for (const chat of chatIds) {
    const expected = messages
      .filter((stored) => chatIdsOf(stored).includes(chat))
      .sort((a, b) => comparePositions(positionOf(b), positionOf(a)))
      .map((stored) => stored.message.id)
    assert.deepEqual(await everyMessage(target, instanceId, chat, 7), expected, `the messages of ${chat}`)
  }
  const senders = new Map<string, string | null>()
  for (const { message } of messages) {
    if (message.from_me) continue
    senders.set(message.sender, message.push_name ?? senders.get(message.sender) ?? null)
  }
  const contacts = await target.contacts(instanceId, 1000)
  assert.deepEqual(
    contacts.map(({ chat, push_name }) => [chat, push_name]),
    [...senders].sort(([a], [b]) => (a < b ? -1 : 1)),
  )
  const [first, second] = [
    await target.contacts(instanceId, 2),
    await target.contacts(instanceId, 2, contacts[1]?.chat),
  ]
  assert.deepEqual(
    [...first, ...second].map(({ chat }) => chat),
    contacts.slice(0, 4).map(({ chat }) => chat),
  )
}

eachBackend((backend) => {
  test(`${backend.kind}: chats, chat pages and contacts read from the index match the messages through adds, resends, reads, sweeps and a reopen`, async () => {
    let now = 1_000
    const storage = await backend.fresh()
    const target = openOn(
      storage,
      messageStore(() => now),
    )
    const items = history(400)
    for (const item of items.slice(0, 300)) await store(target, 'i1', item)
    now += 20 * DAY
    for (const item of items.slice(300)) await store(target, 'i1', item)
    await store(target, 'i2', items[0] as ReturnType<typeof history>[number])
    const ids = new Set(items.map((item) => item.message.id))
    await assertIndexMatches(target, 'i1', ids)

    const sent = items.filter((item) => item.direction === 'out').slice(0, 10)
    for (const item of sent)
      await store(target, 'i1', { ...item, message: { ...item.message, text: 'again' } })
    const received = items.filter((item) => item.direction === 'in').map((item) => item.message.id)
    await target.markRead('i1', received.slice(0, 60))
    await assertIndexMatches(target, 'i1', ids)

    // Each person's LID chat joins their number's: the index still matches the messages, now one chat each.
    const underLid = async () =>
      (await everyChat(target, 'i1', 500)).filter(({ chat }) => chat.endsWith('@lid')).length
    assert.ok((await underLid()) > 0)
    for (let n = 0; n < 9; n++) {
      const who = person(n)
      const before = items.filter((item) => item.message.chat === who.lid).length
      assert.equal(await target.joinChat('i1', who.lid, who.chat), before, `moved for ${who.lid}`)
      assert.equal(await target.joinChat('i1', who.lid, who.chat), 0, 'joining again moves nothing')
    }
    assert.equal(await underLid(), 0)
    await assertIndexMatches(target, 'i1', ids)
    for (const item of items.filter((item) => item.alt)) {
      const { message } = (await target.get('i1', item.message.id)) as StoredMessage
      assert.equal(message.chat, item.alt)
      if (!message.from_me)
        assert.deepEqual([message.sender, message.sender_lid], [item.alt, item.message.chat])
    }

    now += 15 * DAY
    const swept = await target.sweep()
    assert.ok(swept > 200, `swept ${swept}`)
    const kept = [...ids].filter(
      (id) =>
        items.findIndex((item) => item.message.id === id) >= 300 ||
        sent.some((item) => item.message.id === id),
    )
    await assertIndexMatches(target, 'i1', kept)

    const reopened = openOn(
      await backend.restart(storage),
      messageStore(() => now),
    )
    await assertIndexMatches(reopened, 'i1', kept)
    await reopened.dropInstance('i1')
    assert.deepEqual(await reopened.chats('i1', 10), [])
    assert.deepEqual(await reopened.contacts('i1', 10), [])
    assert.equal((await reopened.chats('i2', 10)).length, 1, 'the other instance keeps its chat')
  })
})

test('lmdb: a data folder written before the chat index opens with its chats, contacts and chat pages', async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'linkdesk-old-store-'))
  try {
    const items = history(200)
    const old = openDatabase(dataDir)
    // What earlier versions kept: the messages alone, keyed by instance and id.
    const messages = old.openDB<StoredMessage, [string, string]>({ name: 'messages', encoding: 'msgpack' })
    await old.transaction(() => {
      items.forEach((item, i) => {
        const stored: StoredMessage = {
          direction: item.direction,
          message: item.message,
          storedAt: 1_000 + i,
        }
        void messages.put(['i1', item.message.id], i % 5 === 0 ? { ...stored, read: true } : stored)
      })
    })
    await old.close()
    const db = openDatabase(dataDir)
    const opened = new LmdbMessageStore(db, dataDir, { now: () => 2_000 })
    await assertIndexMatches(
      opened,
      'i1',
      items.map((item) => item.message.id),
    )
    await db.close()
    const again = openDatabase(dataDir)
    await assertIndexMatches(
      new LmdbMessageStore(again, dataDir, { now: () => 2_000 }),
      'i1',
      items.map((item) => item.message.id),
    )
    await again.close()
  } finally {
    rmSync(dataDir, { recursive: true, force: true })
  }
})

postgresSuite('postgres: a database written before the chat index', (pool) => {
  test('is migrated with its chats, contacts and chat pages', async () => {
    const url = new URL((pool().options as { connectionString: string }).connectionString)
    url.pathname = '/before_chat_index'
    await pool().query('CREATE DATABASE before_chat_index')
    const old = new pg.Pool({ connectionString: url.href })
    try {
      const client = await old.connect()
      try {
        await runner({
          dbClient: client,
          dir: fileURLToPath(new URL('./postgres/migrations', import.meta.url)),
          direction: 'up',
          count: 1795910400008,
          timestamp: true,
          migrationsTable: 'linkdesk_migrations',
          log: () => undefined,
        })
      } finally {
        client.release()
      }
      const items = history(200)
      for (const [i, item] of items.entries()) {
        await old.query(
          `INSERT INTO messages (instance_id, id, stored_at, direction, read, record) VALUES ($1, $2, $3, $4, $5, $6)`,
          [
            'i1',
            item.message.id,
            1_000 + i,
            item.direction,
            i % 5 === 0,
            JSON.stringify({ direction: item.direction, message: item.message, storedAt: 1_000 + i }),
          ],
        )
      }
      await migrate(old, silentLogger())
      await assertIndexMatches(
        new PostgresMessageStore(old),
        'i1',
        items.map((item) => item.message.id),
      )
    } finally {
      await old.end()
    }
  })
})
