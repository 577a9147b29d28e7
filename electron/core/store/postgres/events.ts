import type pg from 'pg'
import {
  type DeliveryAttempt,
  type DeliveryFilter,
  type DeliveryStatus,
  type EventFilter,
  type StoredEvent,
  type EventStore,
  type EventWrite,
  type SweepCount,
  type CommitOptions,
  type Page,
  type PageQuery,
  SCAN_LIMIT,
  type OutboxEntry,
  type QueuedEntry,
  MessageAlreadyAnnounced,
} from '../event-store'
import { ID_MAX, idFloorAt } from '../../contract/event-id'
import type { LogPage } from '../event-store'
import { unhandledCase } from '../../exhaustive'
import { queueParts } from '../outbox-queue'
import type { JsonStatement } from './statements'
import { fencedStatement, resultsFenced, type WriteFence } from './write-fence'
import { TurnCommit } from './turn-commit'
import { inTransaction } from './transaction'

type Kind = EventWrite['kind']
type WriteOf<K extends Kind> = Extract<EventWrite, { kind: K }>

/** Rows read per query while filling a page (the caller's visibility is checked here, not in SQL). */
const SCAN_CHUNK = 500

/**
 * The event store in PostgreSQL: events, event_messages (one event per network message id: the primary key),
 * webhook_outbox (each queue in queue id order) and delivery_attempts. Commits are grouped (TurnCommit): those
 * made in one turn, or while a transaction is under way, share one; inside it, writes apply in order, a run of
 * one kind in one statement.
 */
export class PostgresEventStore implements EventStore {
  constructor(
    private readonly pool: pg.Pool,
    private readonly fence?: WriteFence,
    /** Shared with the message store of the same database: a message's row commits with its event. */
    private readonly commits = new TurnCommit(pool, fence),
  ) {}

  /** A message id's claim is the primary key of event_messages, inserted in the same commit as its event. */
  readonly claimsInCommit = true

  /**
   * Deliveries' outcomes (deferrable: nobody outside waits for them) kept back until the end of this turn: the
   * next post of the same queue, marked in this turn, takes them along in its own statement.
   */
  private held: Held[] = []

  async commit(writes: readonly EventWrite[], options?: CommitOptions): Promise<void> {
    if (writes.length === 0) return
    const queue = options?.deferrable ? outcomeQueue(writes) : undefined
    if (queue !== undefined) {
      return new Promise((resolve, reject) => {
        if (this.held.length === 0) setImmediate(() => this.flush())
        this.held.push({ queue, writes, resolve, reject })
      })
    }
    return this.commitNow(writes)
  }

  /** Commits now, in the shared turn commit, the outcomes kept back. */
  flush(): void {
    for (const { writes, resolve, reject } of this.held.splice(0))
      this.commitNow(writes).then(resolve, reject)
  }

  private async commitNow(writes: readonly EventWrite[]): Promise<void> {
    const part = { instanceIds: writes.map(instanceOf), statements: statementsOf(writes) }
    await this.commits.commit(part).catch((error: unknown) => {
      throw alreadyAnnounced(error, writes) ?? error
    })
  }

  readonly markPosting = async (queue: string, queueIds: readonly string[]): Promise<Set<string>> => {
    const outcomes = this.held.filter((held) => held.queue === queue)
    if (outcomes.length > 0) {
      this.held = this.held.filter((held) => held.queue !== queue)
      return this.markWithOutcomes(queue, queueIds, outcomes)
    }
    return this.mark(queue, queueIds)
  }

  /**
   * The posting marks and the outcomes of this queue's previous posts in one statement (one round trip per
   * delivered event); if it fails, each is tried again on its own, so an outcome refused fails alone.
   */
  private async markWithOutcomes(
    queue: string,
    queueIds: readonly string[],
    outcomes: Held[],
  ): Promise<Set<string>> {
    const writes = outcomes.flatMap(({ writes }) => writes)
    const marking: JsonStatement = {
      sql: MARK_POSTING,
      rows: queueIds.map((queueId) => ({ queue, queue_id: queueId })),
    }
    const instanceIds = () => new Set([...writes.map(instanceOf), queueParts(queue).instanceId ?? ''])
    try {
      const results = await resultsFenced(this.pool, this.fence, instanceIds, [
        ...statementsOf(writes),
        marking,
      ])
      for (const { resolve } of outcomes) resolve()
      const rows = (results.at(-1)?.rows ?? []) as Array<{ queue_id: string; was: boolean }>
      return new Set(rows.filter(({ was }) => was).map(({ queue_id }) => queue_id))
    } catch {
      for (const { writes, resolve, reject } of outcomes) this.commitNow(writes).then(resolve, reject)
      return this.mark(queue, queueIds)
    }
  }

  private async mark(queue: string, queueIds: readonly string[]): Promise<Set<string>> {
    const params: unknown[] = [queue, queueIds]
    // One statement: each entry's mark as it was (locked until the commit) and the mark set, behind the fence.
    const { rows } = await fencedStatement(this.fence, queueParts(queue).instanceId ?? '', params, (holds) =>
      this.pool.query<{ queue_id: string; was: boolean }>(
        `WITH before AS (SELECT queue_id, posting FROM webhook_outbox
                         WHERE queue = $1 AND queue_id = ANY($2) AND ${holds} FOR UPDATE)
         UPDATE webhook_outbox SET posting = true FROM before
         WHERE webhook_outbox.queue = $1 AND webhook_outbox.queue_id = before.queue_id
         RETURNING webhook_outbox.queue_id, before.posting AS was`,
        params,
      ),
    )
    return new Set(rows.filter(({ was }) => was).map(({ queue_id }) => queue_id))
  }

  async event(id: string): Promise<StoredEvent | undefined> {
    const { rows } = await this.pool.query<EventRow>(`SELECT ${EVENT_COLUMNS} FROM events WHERE id = $1`, [
      id,
    ])
    return rows[0] && storedOf(rows[0])
  }

  async existing(ids: readonly string[]): Promise<Set<string>> {
    const { rows } = await this.pool.query<{ id: string }>('SELECT id FROM events WHERE id = ANY($1)', [ids])
    return new Set(rows.map(({ id }) => id))
  }

  events(filter: EventFilter, query: PageQuery): Promise<Page<StoredEvent>> {
    const where: string[] = []
    const params: unknown[] = []
    if (filter.instanceId) where.push(`instance_id = ${param(params, filter.instanceId)}`)
    if (filter.event) where.push(`event = ${param(params, filter.event)}`)
    return scanPage(this.pool, { table: 'events', columns: EVENT_COLUMNS, where, params }, query, (row) => {
      const stored = storedOf(row as unknown as EventRow)
      return filter.visible(stored.owner) ? stored : undefined
    })
  }

  /**
   * The log in commit order, for nodes following it: events after `position`, in (transaction, id) order,
   * only those below the oldest transaction still running (none can commit before them any more). Answers
   * the position to read from next.
   */
  async follow(filter: Partial<EventFilter>, position: string, limit: number): Promise<LogPage> {
    const { tx, id } = parsePosition(position)
    const params: unknown[] = [tx, id]
    const where = ['(tx, id) > ($1::xid8, $2)', 'tx < mark.xmin']
    if (filter.instanceId) where.push(`instance_id = ${param(params, filter.instanceId)}`)
    if (filter.event) where.push(`event = ${param(params, filter.event)}`)
    // One statement, one snapshot: the rows and the mark (the oldest transaction still running) agree.
    const { rows } = await this.pool.query<
      Partial<EventRow> & { xmin: string; tx: string | null; id: string }
    >(
      `SELECT mark.xmin::text AS xmin, e.* FROM
         (SELECT pg_snapshot_xmin(pg_current_snapshot()) AS xmin) mark
         LEFT JOIN LATERAL (SELECT tx::text AS tx, ${EVENT_COLUMNS} FROM events WHERE ${where.join(' AND ')}
                            ORDER BY tx, id LIMIT ${param(params, limit)}) e ON true`,
      params,
    )
    const found = rows.filter(
      (row): row is EventRow & { xmin: string; tx: string; id: string } => row.tx !== null,
    )
    const items = found.map((row) => ({ stored: storedOf(row), position: positionAt(row.tx, row.id) }))
    const visible = filter.visible ? items.filter(({ stored }) => filter.visible!(stored.owner)) : items
    const last = items.at(-1)?.position ?? position
    // Read to the end: everything below the oldest running transaction has been seen.
    const seen = found.length < limit ? below(rows[0]!.xmin) : last
    return { items: visible, position: seen > last ? seen : last, done: found.length < limit }
  }

  /** The position right before the event with this id, or (unknown, or none given) the end of the log now. */
  async positionOf(eventId?: string): Promise<string> {
    if (eventId !== undefined) {
      const { rows } = await this.pool.query<{ tx: string }>(
        'SELECT tx::text AS tx FROM events WHERE id = $1',
        [eventId],
      )
      if (rows[0]) return positionAt(rows[0].tx, eventId)
    }
    const { rows } = await this.pool.query<{ xmin: string }>(
      'SELECT pg_snapshot_xmin(pg_current_snapshot())::text AS xmin',
    )
    return below(rows[0]!.xmin)
  }

  async idsWithStatus(instanceId: string, status: DeliveryStatus): Promise<string[]> {
    const { rows } = await this.pool.query<{ id: string }>(
      'SELECT id FROM events WHERE instance_id = $1 AND status = $2 ORDER BY id',
      [instanceId, status],
    )
    return rows.map(({ id }) => id)
  }

  async lastId(): Promise<string | undefined> {
    const { rows } = await this.pool.query<{ id: string | null }>(
      `SELECT greatest((SELECT max(id) FROM events), (SELECT max(id) FROM delivery_attempts),
                       (SELECT max(queue_id) FROM webhook_outbox)) AS id`,
    )
    return rows[0]?.id ?? undefined
  }

  async lastEventId(): Promise<string | undefined> {
    const { rows } = await this.pool.query<{ id: string | null }>('SELECT max(id) AS id FROM events')
    return rows[0]?.id ?? undefined
  }

  async eventOfMessage(instanceId: string, messageId: string): Promise<string | undefined> {
    const { rows } = await this.pool.query<{ event_id: string }>(
      'SELECT event_id FROM event_messages WHERE instance_id = $1 AND message_id = $2',
      [instanceId, messageId],
    )
    return rows[0]?.event_id
  }

  deliveries(filter: DeliveryFilter, query: PageQuery): Promise<Page<DeliveryAttempt>> {
    const where: string[] = []
    const params: unknown[] = []
    if (filter.instanceId) where.push(`instance_id = ${param(params, filter.instanceId)}`)
    if (filter.eventId) where.push(`event_id = ${param(params, filter.eventId)}`)
    if (filter.outcome) where.push(`outcome = ${param(params, filter.outcome)}`)
    if (filter.webhookId === null) where.push('webhook_id IS NULL')
    else if (filter.webhookId !== undefined) where.push(`webhook_id = ${param(params, filter.webhookId)}`)
    const table = { table: 'delivery_attempts', columns: 'id, owner, attempt', where, params }
    return scanPage(this.pool, table, query, (row) => {
      const { owner, attempt } = row as { owner: string | null; attempt: string }
      return filter.visible(owner) ? (JSON.parse(attempt) as DeliveryAttempt) : undefined
    })
  }

  async queued(queue: string, queueId: string): Promise<OutboxEntry | undefined> {
    const { rows } = await this.pool.query<{ entry: OutboxEntry }>(
      'SELECT entry FROM webhook_outbox WHERE queue = $1 AND queue_id = $2',
      [queue, queueId],
    )
    return rows[0]?.entry
  }

  async queuedAfter(queue: string, afterQueueId: string, limit: number): Promise<QueuedEntry[]> {
    const { rows } = await this.pool.query<{ queue_id: string; entry: OutboxEntry }>(
      'SELECT queue_id, entry FROM webhook_outbox WHERE queue = $1 AND queue_id > $2 ORDER BY queue_id LIMIT $3',
      [queue, afterQueueId, limit],
    )
    return rows.map(({ queue_id: queueId, entry }) => ({ queueId, entry }))
  }

  async queues(instanceId?: string): Promise<string[]> {
    // One instance's queues are read through their index (webhook_outbox_by_instance), not from the whole outbox.
    const { rows } =
      instanceId === undefined
        ? await this.pool.query<{ queue: string }>('SELECT DISTINCT queue FROM webhook_outbox')
        : await this.pool.query<{ queue: string }>(
            `SELECT DISTINCT queue FROM webhook_outbox
             WHERE (CASE WHEN queue LIKE 'webhook:%' THEN split_part(queue, '@', 2) ELSE queue END) = $1`,
            [instanceId],
          )
    return rows.map(({ queue }) => queue)
  }

  async queueDepth(instanceId?: string): Promise<number> {
    const { rows } =
      instanceId === undefined
        ? await this.pool.query<{ n: string }>('SELECT count(*) AS n FROM webhook_outbox')
        : await this.pool.query<{ n: string }>(
            `SELECT count(*) AS n FROM webhook_outbox
             WHERE (CASE WHEN queue LIKE 'webhook:%' THEN split_part(queue, '@', 2) ELSE queue END) = $1`,
            [instanceId],
          )
    return Number(rows[0]?.n ?? 0)
  }

  sweep(beforeId: string, max: { events: number; deliveries: number }): Promise<SweepCount> {
    return inTransaction(this.pool, async (client) => {
      // Past the age, or beyond the maximum the oldest ones; an event waiting for delivery stays.
      const events = await client.query(
        `DELETE FROM events WHERE id IN (
           SELECT id FROM events WHERE status <> 'pending' AND id < $1
           UNION
           SELECT id FROM (
             SELECT id FROM events WHERE status <> 'pending' ORDER BY id
             LIMIT (SELECT greatest(count(*) - $2, 0) FROM events)
           ) AS oldest)`,
        [beforeId, max.events],
      )
      const deliveries = await client.query(
        `DELETE FROM delivery_attempts WHERE id IN (
           SELECT id FROM delivery_attempts WHERE id < $1
           UNION
           SELECT id FROM (
             SELECT id FROM delivery_attempts ORDER BY id
             LIMIT (SELECT greatest(count(*) - $2, 0) FROM delivery_attempts)
           ) AS oldest)`,
        [beforeId, max.deliveries],
      )
      await client.query('DELETE FROM event_messages WHERE event_id < $1', [beforeId])
      return { events: events.rowCount ?? 0, deliveries: deliveries.rowCount ?? 0 }
    })
  }
}

/** An event row: the envelope and the delivery summary as JSON text. */
interface EventRow {
  envelope: string
  owner: string | null
  delivery: string
}

const EVENT_COLUMNS = 'id, envelope, owner, delivery'

/** A place in the log in commit order, as a string that sorts like it: the transaction (20 digits), the id. */
function positionAt(tx: string, id: string): string {
  return `${tx.padStart(20, '0')}:${id}`
}

function parsePosition(position: string): { tx: string; id: string } {
  const [tx = '0', id = ''] = position.split(':')
  return { tx: String(BigInt(tx)), id }
}

/** The position after every event of a transaction older than `xmin`. */
function below(xmin: string): string {
  return positionAt(String(BigInt(xmin) - 1n), '~')
}

function storedOf({ envelope, owner, delivery }: EventRow): StoredEvent {
  return {
    envelope: JSON.parse(envelope) as StoredEvent['envelope'],
    owner,
    delivery: JSON.parse(delivery) as StoredEvent['delivery'],
  }
}

/** Adds a query parameter; returns its placeholder. */
function param(params: unknown[], value: unknown): string {
  params.push(value)
  return `$${params.length}`
}

/**
 * One page of a time-ordered table, as the LMDB logs page: ids between since and until, after the cursor, in
 * the order asked, keeping the rows `keep` returns, until the limit or SCAN_LIMIT rows looked at.
 */
async function scanPage<T>(
  pool: pg.Pool,
  source: { table: string; columns: string; where: string[]; params: unknown[] },
  query: PageQuery,
  keep: (row: Record<string, unknown>) => T | undefined,
): Promise<Page<T>> {
  const low = query.since !== undefined ? idFloorAt(query.since * 1000) : ''
  const high = query.until !== undefined ? idFloorAt((query.until + 1) * 1000) : ID_MAX
  const ascending = query.order === 'asc'
  let from = ascending
    ? query.cursor !== undefined && query.cursor >= low
      ? { id: query.cursor, inclusive: false }
      : { id: low, inclusive: true }
    : { id: query.cursor !== undefined && query.cursor < high ? query.cursor : high, inclusive: false }
  const items: T[] = []
  let scanned = 0
  for (;;) {
    const params = [...source.params]
    const bounds = ascending
      ? [`id ${from.inclusive ? '>=' : '>'} ${param(params, from.id)}`, `id < ${param(params, high)}`]
      : [`id < ${param(params, from.id)}`, `id >= ${param(params, low)}`]
    const { rows } = await pool.query<Record<string, unknown> & { id: string }>(
      `SELECT ${source.columns} FROM ${source.table} WHERE ${[...source.where, ...bounds].join(' AND ')}
       ORDER BY id ${ascending ? 'ASC' : 'DESC'} LIMIT ${SCAN_CHUNK}`,
      params,
    )
    for (const row of rows) {
      scanned += 1
      const item = keep(row)
      if (item !== undefined) items.push(item)
      if (items.length >= query.limit || scanned >= SCAN_LIMIT) return { items, nextCursor: row.id }
    }
    if (rows.length < SCAN_CHUNK) return { items, nextCursor: null }
    from = { id: rows.at(-1)!.id, inclusive: false }
  }
}

/** Writes in order, as statements: each run of one kind in one statement, with the last write per key in it. */
function statementsOf(writes: readonly EventWrite[]): JsonStatement[] {
  const statements: JsonStatement[] = []
  let start = 0
  while (start < writes.length) {
    const kind = writes[start]!.kind
    let end = start + 1
    while (end < writes.length && writes[end]!.kind === kind) end += 1
    statements.push(...runStatements(kind, writes.slice(start, end)))
    start = end
  }
  return statements
}

function runStatements(kind: Kind, run: readonly EventWrite[]): JsonStatement[] {
  switch (kind) {
    case 'event': {
      const events = run as Array<WriteOf<'event'>>
      const announcing = events.filter(({ messageId }) => messageId !== undefined)
      return [
        {
          sql: `INSERT INTO events (id, instance_id, event, owner, envelope, delivery, status)
                SELECT * FROM jsonb_to_recordset($1::jsonb) AS x(id text, instance_id text, event text,
                  owner text, envelope text, delivery text, status text)`,
          rows: events.map(({ stored: { envelope, owner, delivery } }) => ({
            id: envelope.event_id,
            instance_id: envelope.instance_id,
            event: envelope.event,
            owner,
            envelope: JSON.stringify(envelope),
            delivery: JSON.stringify(delivery),
            status: delivery.status,
          })),
        },
        ...(announcing.length === 0
          ? []
          : [
              {
                sql: `INSERT INTO event_messages (instance_id, message_id, event_id)
                      SELECT * FROM jsonb_to_recordset($1::jsonb)
                        AS x(instance_id text, message_id text, event_id text)`,
                rows: announcing.map(({ stored: { envelope }, messageId }) => ({
                  instance_id: envelope.instance_id,
                  message_id: messageId,
                  event_id: envelope.event_id,
                })),
              },
            ]),
      ]
    }
    case 'delivery': {
      const latest = lastPerKey(run as Array<WriteOf<'delivery'>>, ({ eventId }) => eventId)
      return [
        {
          sql: `UPDATE events SET delivery = x.delivery, status = x.status
                FROM jsonb_to_recordset($1::jsonb) AS x(id text, delivery text, status text)
                WHERE events.id = x.id`,
          rows: latest.map(({ eventId, delivery }) => ({
            id: eventId,
            delivery: JSON.stringify(delivery),
            status: delivery.status,
          })),
        },
      ]
    }
    case 'enqueue':
      return [
        {
          sql: `INSERT INTO webhook_outbox (queue, queue_id, entry)
                SELECT * FROM jsonb_to_recordset($1::jsonb) AS x(queue text, queue_id text, entry jsonb)`,
          rows: (run as Array<WriteOf<'enqueue'>>).map(({ queue, queueId, entry }) => ({
            queue,
            queue_id: queueId,
            entry,
          })),
        },
      ]
    case 'retry': {
      const key = ({ queue, queueId }: WriteOf<'retry'>) => `${queue}\u0000${queueId}`
      const latest = lastPerKey(run as Array<WriteOf<'retry'>>, key)
      return [
        {
          sql: `UPDATE webhook_outbox SET entry = x.entry, posting = false
                FROM jsonb_to_recordset($1::jsonb) AS x(queue text, queue_id text, entry jsonb)
                WHERE webhook_outbox.queue = x.queue AND webhook_outbox.queue_id = x.queue_id`,
          rows: latest.map(({ queue, queueId, entry }) => ({ queue, queue_id: queueId, entry })),
        },
      ]
    }
    case 'dequeue':
      return [
        {
          sql: `DELETE FROM webhook_outbox USING jsonb_to_recordset($1::jsonb) AS x(queue text, queue_id text)
                WHERE webhook_outbox.queue = x.queue AND webhook_outbox.queue_id = x.queue_id`,
          rows: (run as Array<WriteOf<'dequeue'>>).map(({ queue, queueId }) => ({
            queue,
            queue_id: queueId,
          })),
        },
      ]
    case 'attempt':
      return [
        {
          sql: `INSERT INTO delivery_attempts (id, instance_id, event_id, webhook_id, outcome, owner, attempt)
                SELECT * FROM jsonb_to_recordset($1::jsonb) AS x(id text, instance_id text, event_id text,
                  webhook_id text, outcome text, owner text, attempt text)`,
          rows: (run as Array<WriteOf<'attempt'>>).map(({ attempt, owner }) => ({
            id: attempt.delivery_id,
            instance_id: attempt.instance_id,
            event_id: attempt.event_id,
            webhook_id: attempt.webhook_id,
            outcome: attempt.outcome,
            owner,
            attempt: JSON.stringify(attempt),
          })),
        },
      ]
    default:
      return unhandledCase(kind, 'event write')
  }
}

/**
 * A commit refused because one of its events announces a message id already claimed (event_messages' primary
 * key): MessageAlreadyAnnounced when the commit held that one message's event (a shared commit is then tried
 * again member by member, so the refusal ends up alone); undefined for any other error.
 */
function alreadyAnnounced(
  error: unknown,
  writes: readonly EventWrite[],
): MessageAlreadyAnnounced | undefined {
  const { code, constraint } = error as { code?: string; constraint?: string }
  if (code !== '23505' || constraint !== 'event_messages_pkey') return undefined
  const announcing = writes.flatMap((write) =>
    write.kind === 'event' && write.messageId !== undefined ? [write.messageId] : [],
  )
  return announcing.length === 1 ? new MessageAlreadyAnnounced(announcing[0]!) : undefined
}

/** The writes of a run, each key's last one only (a later write of the same key replaces an earlier). */
function lastPerKey<W>(run: readonly W[], key: (write: W) => string): W[] {
  return [...new Map(run.map((write) => [key(write), write])).values()]
}

/** A deferrable commit kept back: a delivery's outcome in one queue, and its caller's promise. */
interface Held {
  queue: string
  writes: readonly EventWrite[]
  resolve(): void
  reject(error: unknown): void
}

/**
 * Marks the posts of entries (rows of queue and queue_id) as under way, each locked until the commit;
 * answers each entry's id and whether its previous post was still marked (a re-post).
 */
const MARK_POSTING = `WITH x AS (SELECT * FROM jsonb_to_recordset($1::jsonb) AS x(queue text, queue_id text)),
  before AS (SELECT o.queue, o.queue_id, o.posting FROM webhook_outbox o
             JOIN x ON o.queue = x.queue AND o.queue_id = x.queue_id FOR UPDATE OF o)
  UPDATE webhook_outbox SET posting = true FROM before
  WHERE webhook_outbox.queue = before.queue AND webhook_outbox.queue_id = before.queue_id
  RETURNING webhook_outbox.queue_id, before.posting AS was`

/** The one queue whose delivery outcome these writes record; undefined for any other commit. */
function outcomeQueue(writes: readonly EventWrite[]): string | undefined {
  let queue: string | undefined
  for (const write of writes) {
    if (write.kind === 'attempt' || write.kind === 'delivery') continue
    if (write.kind !== 'dequeue' && write.kind !== 'retry') return undefined
    if (queue !== undefined && queue !== write.queue) return undefined
    queue = write.queue
  }
  return queue
}

/** The instance a write belongs to (an added webhook's queue shared by every instance belongs to none). */
function instanceOf(write: EventWrite): string {
  switch (write.kind) {
    case 'event':
      return write.stored.envelope.instance_id
    case 'delivery':
      return write.instanceId
    case 'attempt':
      return write.attempt.instance_id
    default:
      return queueParts(write.queue).instanceId ?? ''
  }
}
