import type { EventWrite } from './event-store'
import { LmdbEventStore } from './lmdb/events'
import type { Logger } from '../logger'
import { LmdbLedgerRecords } from './lmdb/ledger'
import { LmdbMessageStore } from './lmdb/messages'
import { LmdbPollVotes } from './lmdb/poll-votes'
import { LmdbAuthStore } from './lmdb/auth'
import { openDatabase } from './lmdb/database'
import { PostgresAuthStore } from './postgres/auth'
import { PostgresEventStore } from './postgres/events'
import { PostgresLedgerRecords } from './postgres/ledger'
import { PostgresMessageStore } from './postgres/messages'
import { PostgresPollVotes } from './postgres/poll-votes'
import { migrate } from './postgres/schema'
import { PostgresSettingsStore } from './postgres/settings'
import { FileSettingsStore } from './lmdb/settings'
import { type SettingsKind } from './settings-store'
import { openPool, type SharedPool } from './postgres/pool'
import { isEncryptedValue } from './auth-codec'

/** What a copy moved, by part. */
export interface CopyCount {
  instances: number
  tokens: number
  webhooks: number
  authValues: number
  events: number
  deliveries: number
  queued: number
  messages: number
  ledgerEntries: number
  pollVotes: number
}

const KINDS: readonly SettingsKind[] = ['tokens', 'instances', 'webhooks']
const EVENT_CHUNK = 1000

/**
 * Copies a data folder's embedded store (settings, credentials and keys, events, outbox, attempts, messages
 * and media, idempotency ledger, poll votes) into an empty PostgreSQL database, so that a `serve` started
 * with `--store` on it finds every account linked as it was. Uploads are not copied (they expire within the
 * hour). The folder is only read; the app must not be running on it. A folder whose credentials the desktop
 * app encrypted with the OS keychain is refused before the database is touched: only that app can read them.
 */
export async function copyToPostgres(dataDir: string, url: string, logger: Logger): Promise<CopyCount> {
  // Every commit of the copy waits for the database's flush (a copy is done once; it need not be fast).
  const pool = openPool(url, { logger, fsync: true })
  const db = openDatabase(dataDir)
  const auth = new LmdbAuthStore(dataDir)
  try {
    // An earlier version's per-instance folders are imported first, as a start would.
    const settings = new FileSettingsStore(dataDir)
    await auth.load(Object.keys(settings.all('instances')))
    const values = [...auth.export()]
    refuseEncrypted(dataDir, values)
    await migrate(pool, logger)
    await refuseUnlessEmpty(pool)
    const target = await PostgresSettingsStore.open(pool)
    const count: CopyCount = {
      instances: 0,
      tokens: 0,
      webhooks: 0,
      authValues: 0,
      events: 0,
      deliveries: 0,
      queued: 0,
      messages: 0,
      ledgerEntries: 0,
      pollVotes: 0,
    }
    for (const kind of KINDS) {
      const records = Object.values(settings.all(kind))
      await target.change(kind, () => ({ put: records, result: undefined }))
      count[kind] = records.length
    }
    await new PostgresAuthStore(pool, dataDir).import(values)
    count.authValues = values.length

    const events = new PostgresEventStore(pool)
    let chunk: EventWrite[] = []
    for (const write of new LmdbEventStore(db).export()) {
      if (write.kind === 'event') count.events += 1
      else if (write.kind === 'attempt') count.deliveries += 1
      else count.queued += 1
      chunk.push(write)
      if (chunk.length >= EVENT_CHUNK) {
        await events.commit(chunk)
        chunk = []
      }
    }
    await events.commit(chunk)

    const source = new LmdbMessageStore(db, dataDir)
    const messages = new PostgresMessageStore(pool)
    for (const { instanceId, stored, status } of source.export()) {
      const media = await source.readMedia(instanceId, stored.message.id)
      await messages.import(instanceId, stored, status, media)
      count.messages += 1
    }
    const ledger = new PostgresLedgerRecords(pool)
    for (const { instanceId, key, entry } of new LmdbLedgerRecords(db).export()) {
      await ledger.put(instanceId, key, entry)
      count.ledgerEntries += 1
    }
    const polls = new PostgresPollVotes(pool)
    for (const { instanceId, pollId, vote } of new LmdbPollVotes(db).export()) {
      await polls.replace(instanceId, pollId, vote)
      count.pollVotes += 1
    }
    logger.info(count, 'data folder copied to PostgreSQL')
    return count
  } finally {
    await auth.close()
    await db.close()
    await pool.end()
  }
}

/**
 * Credentials the desktop app encrypted with the OS keychain (Electron's safeStorage) can be decrypted only by
 * that app, on that computer, for that user: copied as they are, no `serve` could read them, and a plain Node
 * command cannot decrypt them. The copy is refused whole, before anything is written.
 */
function refuseEncrypted(dataDir: string, values: readonly { instanceId: string; value: Buffer }[]): void {
  const encrypted = new Set(values.filter(({ value }) => isEncryptedValue(value)).map((v) => v.instanceId))
  if (encrypted.size === 0) return
  throw new Error(
    `the credentials of ${encrypted.size} instance(s) in ${dataDir} are encrypted with the desktop app's keychain, ` +
      'which only the desktop app on this computer can read; nothing was copied. Link those accounts again on a ' +
      '`serve --store postgres://…` (a QR scan each), or copy a folder written by `npm run serve`.',
  )
}

/** A copy goes into an empty database only: it never merges with, or overwrites, another node's data. */
async function refuseUnlessEmpty(pool: SharedPool): Promise<void> {
  const { rows } = await pool.query<{ n: string }>(
    `SELECT (SELECT count(*) FROM instances) + (SELECT count(*) FROM tokens) + (SELECT count(*) FROM events)
          + (SELECT count(*) FROM auth_entries) + (SELECT count(*) FROM messages) AS n`,
  )
  if (Number(rows[0]?.n ?? 0) > 0)
    throw new Error('the PostgreSQL database already holds Linkdesk data; copy into an empty database')
}
