import pg from 'pg'

/**
 * The cluster's own traffic: notifications and the log read they wake (at most one per 20 ms), the lease, the
 * periodic check of the settings' versions.
 */
export const SIGNALLING =
  /pg_notify|pg_snapshot_xmin|FROM nodes|UPDATE nodes|instance_owner|SELECT id, version FROM/

/** One query the app sent: its text (the simple protocol inlines rows) and its values. */
export interface SentQuery {
  text: string
  values: unknown[]
}

/** Every query the app sends to `database` while `body` runs, counted at pg's client: a count, whatever the load. */
export async function queriesDuring(database: string, body: () => Promise<void>): Promise<SentQuery[]> {
  const seen: SentQuery[] = []
  const query = pg.Client.prototype.query
  pg.Client.prototype.query = function (this: pg.Client, ...args: unknown[]) {
    const [first, second] = args
    const config = typeof first === 'string' ? { text: first } : (first as Partial<SentQuery> | undefined)
    const values = Array.isArray(second) ? second : (config?.values ?? [])
    if (this.database === database && config?.text !== undefined) seen.push({ text: config.text, values })
    return (query as (...args: unknown[]) => unknown).apply(this, args)
  } as typeof query
  try {
    await body()
  } finally {
    pg.Client.prototype.query = query
  }
  return seen
}
