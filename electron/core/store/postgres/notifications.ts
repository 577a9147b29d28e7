import pg from 'pg'
import type { Logger } from '../../logger'

/** The channels the nodes of a cluster signal each other on. */
export type Channel = 'linkdesk_cluster' | 'linkdesk_settings' | 'linkdesk_events'

type Handler = (payload: string) => void

const RECONNECT_MS = 1_000

/**
 * PostgreSQL notifications between the nodes: received on one connection of its own, opened directly to the
 * database (LISTEN does not survive a transaction-mode pooler), reopened after a failure; sent through the
 * pool, outside any write transaction (a NOTIFY inside one would serialize every commit on the notify queue).
 * A notification only wakes a reader: what it announces is always read back from the tables, so one lost while
 * the connection was down delays a peer and loses nothing.
 */
export class Notifications {
  private client: pg.Client | undefined
  private readonly handlers = new Map<Channel, Set<Handler>>()
  private closed = false
  private retry: NodeJS.Timeout | undefined
  private readonly log: Logger

  constructor(
    private readonly url: string,
    private readonly pool: pg.Pool,
    logger: Logger,
    /** Called after every (re)connection: whatever was announced meanwhile must be read again. */
    private readonly onReconnect: () => void = () => undefined,
  ) {
    this.log = logger.child({ module: 'notifications' })
  }

  /** Opens the listening connection; resolves once every channel is listened to. */
  async open(): Promise<void> {
    const client = new pg.Client({ connectionString: this.url })
    client.on('notification', ({ channel, payload }) => {
      for (const handler of this.handlers.get(channel as Channel) ?? []) {
        try {
          handler(payload ?? '')
        } catch (error) {
          this.log.error({ err: error, channel }, 'a notification handler failed')
        }
      }
    })
    client.on('error', (error) => {
      this.log.warn({ err: error }, 'the notification connection failed; reopening it')
      void client.end().catch(() => undefined)
      if (this.client === client) this.client = undefined
      this.scheduleReopen()
    })
    await client.connect()
    for (const channel of this.handlers.keys()) await client.query(`LISTEN ${channel}`)
    this.client = client
  }

  on(channel: Channel, handler: Handler): void {
    let handlers = this.handlers.get(channel)
    if (!handlers) {
      handlers = new Set()
      this.handlers.set(channel, handlers)
      void this.client?.query(`LISTEN ${channel}`).catch((error: unknown) => {
        this.log.warn({ err: error, channel }, 'listening failed')
      })
    }
    handlers.add(handler)
  }

  /** Sends a notification (at most about 8 kB of payload) through the pool; a failure is logged, not thrown. */
  async notify(channel: Channel, payload: string): Promise<void> {
    try {
      await this.pool.query('SELECT pg_notify($1, $2)', [channel, payload])
    } catch (error) {
      if (!this.closed) this.log.warn({ err: error, channel }, 'a notification could not be sent')
    }
  }

  async close(): Promise<void> {
    this.closed = true
    clearTimeout(this.retry)
    await this.client?.end().catch(() => undefined)
    this.client = undefined
  }

  private scheduleReopen(): void {
    if (this.closed || this.retry) return
    this.retry = setTimeout(() => {
      this.retry = undefined
      this.open().then(this.onReconnect, (error: unknown) => {
        this.log.warn({ err: error }, 'reopening the notification connection failed')
        this.scheduleReopen()
      })
    }, RECONNECT_MS)
    this.retry.unref()
  }
}
