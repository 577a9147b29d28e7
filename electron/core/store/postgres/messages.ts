import type pg from 'pg'
import { fencedStatement, type WriteFence } from './write-fence'
import { TurnCommit } from './turn-commit'
import { boundedCache, CACHE_LIMITS } from '../../bounded-cache'
import {
  joinedMessage,
  type MessagePosition,
  newestReceived,
  retentionOf,
  storedAtClock,
  type MessageStore,
  type MessageStoreOptions,
  STATUS_RANK,
  type StoredChat,
  type StoredContact,
  type StoredMessage,
} from '../message-store'
import type { DeliveryStatus } from '../../contract/message'

/** A stored message's row: everything but its content as JSON text, the content apart. */
interface MessageRow {
  record: string
  content: Buffer | null
  read: boolean
}

/**
 * Sent and received messages in PostgreSQL (`messages`, `message_statuses`, `message_media`): media in the
 * database beside its message, so every node reads it, backups hold it and it goes with its message. A
 * message added is visible to reads at once (kept in memory until its insert commits), as in the embedded
 * store; a status moves forward in one conditional upsert. Chats, chat pages and contacts are range reads of
 * the chat index a trigger keeps in the statement that writes each message (migration 9).
 */
export class PostgresMessageStore implements MessageStore {
  /** Messages whose write is not committed yet, by `instanceId\0id`. */
  private readonly pending = new Map<string, StoredMessage>()
  /** Ids being written: an incoming message seen twice before its write commits is still one message. */
  private readonly recent = boundedCache<string, true>(CACHE_LIMITS.messageIdsInFlight)
  private readonly retentionMs: number
  private readonly now: () => number
  private readonly stamp: () => number

  constructor(
    private readonly pool: pg.Pool,
    options: MessageStoreOptions = {},
    /** In a cluster: every write of an instance's messages checks that this node holds it. */
    private readonly fence?: WriteFence,
    /** Shared with the event store of the same database: a message's row commits with its event. */
    private readonly commits = new TurnCommit(pool, fence),
  ) {
    this.retentionMs = retentionOf(options)
    this.now = options.now ?? Date.now
    this.stamp = storedAtClock(this.now)
  }

  async addIfNew(instanceId: string, entry: Omit<StoredMessage, 'storedAt'>): Promise<boolean> {
    const key = `${instanceId}\u0000${entry.message.id}`
    // Claimed synchronously: a second copy arriving while the write is in flight is already a duplicate.
    if (this.recent.has(key) || this.pending.has(key)) return false
    this.recent.set(key, true)
    const stored: StoredMessage = { ...entry, storedAt: this.stamp() }
    this.pending.set(key, stored)
    try {
      // In the commit of the turn the message's event is asked in: one round trip for both.
      const [added] = await this.commits.commit({
        instanceIds: [instanceId],
        statements: [{ sql: INSERT_NEW, rows: [rowOf(instanceId, stored)] }],
      })
      return added === 1
    } finally {
      if (this.pending.get(key) === stored) this.pending.delete(key)
    }
  }

  /** Stores a message as another store kept it: its time, its newest status and its media. */
  async import(
    instanceId: string,
    stored: StoredMessage,
    status: DeliveryStatus | undefined,
    media: Buffer | undefined,
  ): Promise<void> {
    await this.pool.query(
      `INSERT INTO messages (instance_id, id, stored_at, direction, read, record, content)
       VALUES ($1, $2, $3, $4, $5, $6, $7)`,
      [instanceId, stored.message.id, ...columnsOf(stored)],
    )
    if (status !== undefined)
      await this.pool.query(
        'INSERT INTO message_statuses (instance_id, id, status, rank) VALUES ($1, $2, $3, $4)',
        [instanceId, stored.message.id, status, STATUS_RANK[status]],
      )
    if (media) await this.saveMedia(instanceId, stored.message.id, media)
  }

  async addSent(instanceId: string, entry: Omit<StoredMessage, 'storedAt' | 'direction'>): Promise<void> {
    const key = `${instanceId}\u0000${entry.message.id}`
    this.recent.set(key, true)
    const stored: StoredMessage = { ...entry, direction: 'out', storedAt: this.stamp() }
    this.pending.set(key, stored)
    try {
      const params = [instanceId, entry.message.id, ...columnsOf(stored)]
      await fencedStatement(this.fence, instanceId, params, (holds) =>
        this.pool.query(
          `INSERT INTO messages (instance_id, id, stored_at, direction, read, record, content)
           ${ROW} WHERE ${holds} ON CONFLICT (instance_id, id)
           DO UPDATE SET stored_at = EXCLUDED.stored_at, direction = EXCLUDED.direction, read = EXCLUDED.read,
                         record = EXCLUDED.record, content = EXCLUDED.content`,
          params,
        ),
      )
    } finally {
      if (this.pending.get(key) === stored) this.pending.delete(key)
    }
  }

  async get(instanceId: string, id: string): Promise<StoredMessage | undefined> {
    const pending = this.pending.get(`${instanceId}\u0000${id}`)
    if (pending) return pending
    const { rows } = await this.pool.query<MessageRow>(
      'SELECT record, content, read FROM messages WHERE instance_id = $1 AND id = $2',
      [instanceId, id],
    )
    return rows[0] && storedOf(rows[0])
  }

  async receivedIn(instanceId: string, chat: string, limit: number): Promise<StoredMessage[]> {
    return newestReceived(this, instanceId, chat, limit)
  }

  async chats(instanceId: string, limit: number, before?: MessagePosition): Promise<StoredChat[]> {
    const params: unknown[] = [instanceId, limit, ...(before ?? [])]
    const { rows } = await this.pool.query<ChatRow>(
      `SELECT s.chat, s.unread, s.messages, m.record, m.read
       FROM chat_summaries s JOIN messages m ON m.instance_id = s.instance_id AND m.id = s.last_id
       WHERE s.instance_id = $1 ${before ? 'AND (s.last_ts, s.last_stored_at, s.last_id) < ($3, $4, $5)' : ''}
       ORDER BY s.last_ts DESC, s.last_stored_at DESC, s.last_id DESC LIMIT $2`,
      params,
    )
    return rows.map(chatOf)
  }

  async chat(instanceId: string, chat: string): Promise<StoredChat | undefined> {
    const { rows } = await this.pool.query<ChatRow>(
      `SELECT s.chat, s.unread, s.messages, m.record, m.read
       FROM chat_summaries s JOIN messages m ON m.instance_id = s.instance_id AND m.id = s.last_id
       WHERE s.instance_id = $1 AND s.chat = $2`,
      [instanceId, chat],
    )
    return rows[0] && chatOf(rows[0])
  }

  async chatPage(
    instanceId: string,
    chat: string,
    limit: number,
    before?: MessagePosition,
  ): Promise<StoredMessage[]> {
    const params: unknown[] = [instanceId, chat, limit, ...(before ?? [])]
    const { rows } = await this.pool.query<MessageRow>(
      `SELECT m.record, NULL AS content, m.read
       FROM message_chats c JOIN messages m ON m.instance_id = c.instance_id AND m.id = c.id
       WHERE c.instance_id = $1 AND c.chat = $2 ${before ? 'AND (c.ts, c.stored_at, c.id) < ($4, $5, $6)' : ''}
       ORDER BY c.ts DESC, c.stored_at DESC, c.id DESC LIMIT $3`,
      params,
    )
    return rows.map(storedOf)
  }

  async contacts(instanceId: string, limit: number, after?: string): Promise<StoredContact[]> {
    const { rows } = await this.pool.query<StoredContact>(
      `SELECT chat, phone, lid, push_name FROM message_contacts
       WHERE instance_id = $1 ${after === undefined ? '' : 'AND chat > $3'} ORDER BY chat LIMIT $2`,
      [instanceId, limit, ...(after === undefined ? [] : [after])],
    )
    return rows
  }

  async joinChat(instanceId: string, lid: string, phone: string): Promise<number> {
    const { rows } = await this.pool.query<{ id: string; record: string }>(
      `SELECT m.id, m.record
       FROM message_chats c JOIN messages m ON m.instance_id = c.instance_id AND m.id = c.id
       WHERE c.instance_id = $1 AND c.chat = $2 AND c.own`,
      [instanceId, lid],
    )
    if (rows.length === 0) return 0
    const records = rows.map(({ record }) =>
      JSON.stringify(joinedMessage(JSON.parse(record) as StoredMessage, lid, phone)),
    )
    // One statement (the trigger moves each message in the chat index with it); a record rewritten meanwhile
    // is left as it now is.
    const params: unknown[] = [
      instanceId,
      rows.map(({ id }) => id),
      rows.map(({ record }) => record),
      records,
    ]
    const { rowCount } = await fencedStatement(this.fence, instanceId, params, (holds) =>
      this.pool.query(
        `UPDATE messages m SET record = u.joined
         FROM unnest($2::text[], $3::text[], $4::text[]) AS u(id, was, joined)
         WHERE m.instance_id = $1 AND m.id = u.id AND m.record = u.was AND ${holds}`,
        params,
      ),
    )
    return rowCount ?? 0
  }

  async removeChat(instanceId: string, chat: string, upTo: number): Promise<number> {
    // One statement: the statuses and media go with their messages (ON DELETE CASCADE) and the trigger moves
    // the chat index.
    const params: unknown[] = [instanceId, chat, upTo]
    const { rowCount } = await fencedStatement(this.fence, instanceId, params, (holds) =>
      this.pool.query(
        `DELETE FROM messages m USING message_chats c
         WHERE c.instance_id = $1 AND c.chat = $2 AND c.ts <= $3
           AND m.instance_id = c.instance_id AND m.id = c.id AND ${holds}`,
        params,
      ),
    )
    return rowCount ?? 0
  }

  async markRead(instanceId: string, ids: readonly string[]): Promise<void> {
    const params: unknown[] = [instanceId, ids]
    await fencedStatement(this.fence, instanceId, params, (holds) =>
      this.pool.query(
        `UPDATE messages SET read = true
         WHERE instance_id = $1 AND id = ANY($2) AND direction = 'in' AND NOT read AND ${holds}`,
        params,
      ),
    )
  }

  async content(instanceId: string, id: string): Promise<Uint8Array | undefined> {
    const pending = this.pending.get(`${instanceId}\u0000${id}`)
    if (pending) return pending.content ? Uint8Array.from(pending.content) : undefined
    const { rows } = await this.pool.query<{ content: Buffer | null }>(
      'SELECT content FROM messages WHERE instance_id = $1 AND id = $2',
      [instanceId, id],
    )
    const content = rows[0]?.content
    return content ? Uint8Array.from(content) : undefined
  }

  async advanceStatus(
    instanceId: string,
    id: string,
    status: DeliveryStatus,
    known?: StoredMessage,
  ): Promise<boolean> {
    // A receipt's message as the intake just read it: one round trip fewer per receipt.
    const stored = known ?? (await this.get(instanceId, id))
    if (!stored) return false
    // A status kept inside the record (copied from an earlier version's store) is the floor until a row exists.
    const floor = stored.status ? STATUS_RANK[stored.status] : -1
    const params: unknown[] = [instanceId, id, status, STATUS_RANK[status], floor]
    const { rowCount } = await fencedStatement(this.fence, instanceId, params, (holds) =>
      this.pool.query(
        `INSERT INTO message_statuses (instance_id, id, status, rank)
         SELECT $1, $2, $3::text, $4::smallint
         WHERE ($3::text = 'failed' OR $4::smallint > $5::smallint) AND ${holds}
         ON CONFLICT (instance_id, id) DO UPDATE SET status = EXCLUDED.status, rank = EXCLUDED.rank
         WHERE EXCLUDED.status = 'failed' OR message_statuses.rank < EXCLUDED.rank`,
        params,
      ),
    )
    return rowCount === 1
  }

  async statusOf(instanceId: string, id: string): Promise<DeliveryStatus | undefined> {
    const { rows } = await this.pool.query<{ status: DeliveryStatus }>(
      'SELECT status FROM message_statuses WHERE instance_id = $1 AND id = $2',
      [instanceId, id],
    )
    return rows[0]?.status ?? (await this.get(instanceId, id))?.status
  }

  async statusesOf(
    instanceId: string,
    messages: readonly StoredMessage[],
  ): Promise<Map<string, DeliveryStatus>> {
    const found = new Map<string, DeliveryStatus>()
    for (const { message, status } of messages) if (status !== undefined) found.set(message.id, status)
    if (messages.length === 0) return found
    const { rows } = await this.pool.query<{ id: string; status: DeliveryStatus }>(
      'SELECT id, status FROM message_statuses WHERE instance_id = $1 AND id = ANY($2::text[])',
      [instanceId, messages.map(({ message }) => message.id)],
    )
    for (const { id, status } of rows) found.set(id, status)
    return found
  }

  async searchChats(instanceId: string, text: string, limit: number): Promise<string[]> {
    // strpos, not LIKE: the person's text is matched as it is, with no wildcard of its own.
    const { rows } = await this.pool.query<{ chat: string }>(
      `SELECT record::jsonb #>> '{message,chat}' AS chat FROM messages
       WHERE instance_id = $1
         AND (strpos(lower(coalesce(record::jsonb #>> '{message,text}', '')), $2) > 0
           OR strpos(lower(coalesce(record::jsonb #>> '{message,caption}', '')), $2) > 0)
       GROUP BY 1 ORDER BY max(stored_at) DESC LIMIT $3`,
      [instanceId, text.toLowerCase(), limit],
    )
    return rows.map(({ chat }) => chat)
  }

  async readMedia(instanceId: string, id: string): Promise<Buffer | undefined> {
    const { rows } = await this.pool.query<{ data: Buffer }>(
      'SELECT data FROM message_media WHERE instance_id = $1 AND id = $2',
      [instanceId, id],
    )
    return rows[0]?.data
  }

  async saveMedia(instanceId: string, id: string, data: Uint8Array): Promise<void> {
    // Kept only beside a stored message (one swept meanwhile downloads again when asked).
    const params: unknown[] = [instanceId, id, Buffer.from(data)]
    await fencedStatement(this.fence, instanceId, params, (holds) =>
      this.pool.query(
        `INSERT INTO message_media (instance_id, id, data)
         SELECT $1, $2, $3 WHERE EXISTS (SELECT 1 FROM messages WHERE instance_id = $1 AND id = $2) AND ${holds}
         ON CONFLICT (instance_id, id) DO UPDATE SET data = EXCLUDED.data`,
        params,
      ),
    )
  }

  async sweep(): Promise<number> {
    const { rowCount } = await this.pool.query('DELETE FROM messages WHERE stored_at < $1', [
      this.now() - this.retentionMs,
    ])
    return rowCount ?? 0
  }

  async dropInstance(instanceId: string): Promise<void> {
    for (const key of this.pending.keys()) if (key.startsWith(`${instanceId}\u0000`)) this.pending.delete(key)
    // The index first, so removing the messages has nothing left to count down.
    for (const table of ['chat_summaries', 'message_contacts', 'messages', 'message_chats'])
      await this.pool.query(`DELETE FROM ${table} WHERE instance_id = $1`, [instanceId])
  }
}

/** New messages from JSON rows (rowOf), those already stored left as they are. */
const INSERT_NEW = `INSERT INTO messages (instance_id, id, stored_at, direction, read, record, content)
  SELECT instance_id, id, stored_at, direction, read, record, decode(content, 'base64')
  FROM jsonb_to_recordset($1::jsonb) AS x(instance_id text, id text, stored_at bigint, direction text,
    read boolean, record text, content text)
  ON CONFLICT (instance_id, id) DO NOTHING`

/** A message as a JSON row of INSERT_NEW: its columns, the content in base64. */
function rowOf(instanceId: string, stored: StoredMessage): Record<string, unknown> {
  const { content, read, ...record } = stored
  return {
    instance_id: instanceId,
    id: stored.message.id,
    stored_at: stored.storedAt,
    direction: stored.direction,
    read: read ?? false,
    record: JSON.stringify(record),
    content: content ? Buffer.from(content).toString('base64') : null,
  }
}

/** A message row from parameters $1 to $7, as a SELECT (so a WHERE can fence it), typed as the columns. */
const ROW = 'SELECT $1::text, $2::text, $3::bigint, $4::text, $5::boolean, $6::text, $7::bytea'

/** A message's columns after its key: stored_at, direction, read, the record (JSON text), the content. */
function columnsOf(stored: StoredMessage): unknown[] {
  const { content, read, ...record } = stored
  return [
    stored.storedAt,
    stored.direction,
    read ?? false,
    JSON.stringify(record),
    content ? Buffer.from(content) : null,
  ]
}

interface ChatRow {
  chat: string
  unread: number
  messages: number
  record: string
  read: boolean
}

function chatOf({ chat, unread, messages, record, read }: ChatRow): StoredChat {
  return { chat, unread, messages, last: storedOf({ record, read, content: null }) }
}

function storedOf({ record, content, read }: MessageRow): StoredMessage {
  const stored = JSON.parse(record) as StoredMessage
  return { ...stored, ...(read && { read }), ...(content && { content: Uint8Array.from(content) }) }
}
