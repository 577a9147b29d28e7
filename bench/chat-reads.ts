// Chat reads at scale: one instance with 100,000 stored messages across 500 chats, on the embedded store (LMDB)
// and on PostgreSQL. Times `chats` (its first page) and a 50-message `chat_messages` page (the newest, and one
// deep in a chat through its cursor) as the API's handlers run them (the chat book over the store), median and
// p95 over BENCH_READS reads each. `npm run bench:chat-reads`; knobs: BENCH_CHAT_MESSAGES (100000),
// BENCH_CHATS (500), BENCH_READS (50).
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import pg from 'pg'
import { SAMPLE_MESSAGE } from '../electron/core/contract/event-catalogue'
import type { LinkdeskMessage } from '../electron/core/contract/message'
import { silentLogger } from '../electron/core/logger'
import { StoredChats } from '../electron/core/messages/chat-book'
import { openDatabase } from '../electron/core/store/lmdb/database'
import { LmdbMessageStore } from '../electron/core/store/lmdb/messages'
import type { MessageStore } from '../electron/core/store/message-store'
import { PostgresMessageStore } from '../electron/core/store/postgres/messages'
import { migrate } from '../electron/core/store/postgres/schema'
import { benchPostgres } from './harness/postgres'
import { percentile } from './harness/stats'

const MESSAGES = Number(process.env.BENCH_CHAT_MESSAGES ?? 100_000)
const CHATS = Number(process.env.BENCH_CHATS ?? 500)
const READS = Number(process.env.BENCH_READS ?? 50)
const INSTANCE = 'BENCHCHATS'

const chatOf = (n: number) => `1555${String(n).padStart(7, '0')}@s.whatsapp.net`

function message(n: number): LinkdeskMessage {
  const contact = (n * 7919) % CHATS
  return {
    ...SAMPLE_MESSAGE,
    id: `3EB0${n.toString(16).padStart(16, '0')}`,
    chat: chatOf(contact),
    sender: chatOf(contact),
    sender_phone: chatOf(contact).split('@')[0] ?? null,
    push_name: `Contact ${contact}`,
    text: `message ${n}: the quick brown fox jumps over the lazy dog`,
    mentions: [],
    timestamp: String(1_795_000_000 + Math.floor(n / 3)),
  }
}

/** Stores the messages, `parallel` writes at a time; answers seconds taken. */
async function seed(store: MessageStore, parallel: number): Promise<number> {
  const started = performance.now()
  for (let n = 0; n < MESSAGES; n += parallel) {
    const batch = Array.from({ length: Math.min(parallel, MESSAGES - n) }, (_, i) =>
      store.addIfNew(INSTANCE, { direction: 'in', message: message(n + i) }),
    )
    await Promise.all(batch)
    if (n % 5_000 < parallel) await new Promise((resolve) => setImmediate(resolve))
  }
  // The embedded store's last writes commit in the background: wait for them before reading.
  await new Promise((resolve) => setTimeout(resolve, 1_000))
  return (performance.now() - started) / 1000
}

/** Times `read` READS times (after a few untimed); answers median and p95 in ms. */
async function time(read: (round: number) => Promise<unknown>): Promise<{ median: number; p95: number }> {
  for (let round = 0; round < 5; round++) await read(round)
  const times: number[] = []
  for (let round = 0; round < READS; round++) {
    const started = performance.now()
    await read(round)
    times.push(performance.now() - started)
  }
  return { median: percentile(times, 50), p95: percentile(times, 95) }
}

/** The rows of one store: chats, a chat's newest 50 messages, and 50 messages deep in a chat. */
async function measure(store: MessageStore): Promise<Array<[string, { median: number; p95: number }]>> {
  const book = new StoredChats(store)
  const first = (await book.chats(INSTANCE, { limit: 100 })) as unknown
  const shown = Array.isArray(first) ? first.length : (first as { chats: unknown[] }).chats.length
  if (shown === 0) throw new Error('no chats after seeding')
  const newest = await time((round) => book.messages(INSTANCE, chatOf(round % CHATS), { limit: 50 }))
  const deep = await time(async (round) => {
    const chat = chatOf((round * 13) % CHATS)
    const { next_cursor: cursor } = await book.messages(INSTANCE, chat, { limit: 100 })
    if (!cursor) throw new Error(`${chat} has one page only`)
    return book.messages(INSTANCE, chat, { limit: 50, cursor })
  })
  return [
    ['chats (first page)', await time(() => book.chats(INSTANCE, { limit: 100 }))],
    ['chat_messages, newest 50', newest],
    ['chat_messages, 50 after 100 (cursor; timed with the page that gave it)', deep],
  ]
}

async function lmdbRows() {
  const dataDir = mkdtempSync(join(tmpdir(), 'linkdesk-bench-chats-'))
  const db = openDatabase(dataDir)
  try {
    const store = new LmdbMessageStore(db, dataDir)
    const seconds = await seed(store, 100)
    return { seconds, rows: await measure(store) }
  } finally {
    await db.close()
    rmSync(dataDir, { recursive: true, force: true })
  }
}

async function postgresRows() {
  const postgres = await benchPostgres()
  if (!postgres) return undefined
  const pool = new pg.Pool({ connectionString: postgres.url, max: 10 })
  try {
    await migrate(pool, silentLogger())
    const store = new PostgresMessageStore(pool)
    const seconds = await seed(store, 50)
    await pool.query('ANALYZE')
    return { seconds, rows: await measure(store) }
  } finally {
    await pool.end()
    postgres.server.stop()
  }
}

async function main(): Promise<void> {
  const out = [
    `${MESSAGES} messages of one instance across ${CHATS} chats; ms per read (median / p95 of ${READS})`,
    '',
    '| store | read | median ms | p95 ms |',
    '|---|---|---|---|',
  ]
  const results: Array<[string, Awaited<ReturnType<typeof lmdbRows>> | undefined]> = [
    ['LMDB', await lmdbRows()],
    ['PostgreSQL', await postgresRows()],
  ]
  for (const [store, result] of results) {
    if (!result) {
      out.push(`| ${store} | not measured: PostgreSQL is not installed | | |`)
      continue
    }
    for (const [read, { median, p95 }] of result.rows)
      out.push(`| ${store} | ${read} | ${median.toFixed(2)} | ${p95.toFixed(2)} |`)
    process.stderr.write(`${store}: seeded in ${result.seconds.toFixed(1)} s\n`)
  }
  process.stdout.write(`${out.join('\n')}\n`)
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    process.stderr.write(`bench failed: ${(error as Error).stack}\n`)
    process.exit(1)
  },
)
