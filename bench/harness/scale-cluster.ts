import { createWriteStream, readdirSync, readFileSync, type WriteStream } from 'node:fs'
import { join } from 'node:path'
import pg from 'pg'
import { type PostgresServer, startPostgres } from '../../electron/core/testing/postgres-server'
import type { MemoryReport } from './app'
import { newDataDir } from './app'
import { compileServer, startNode, type Started } from './processes'
import { type OutsideSandbox, startSandbox } from './sandbox'
import { ScaleReceiver } from './scale-receiver'
import { sleep } from './stats'

export const SCALE_TOKEN = 'scale-bench-token'

/** One `serve` node of the cluster. */
export interface ScaleNode {
  id: string
  dataDir: string
  app?: Started
  /** Stopped with SIGSTOP: alive, but answers nothing. */
  paused: boolean
  /** Every start's stderr (its warnings and errors) is appended here. */
  logPath: string
}

/** What one node holds in memory and open files right now. */
export interface NodeSample {
  node: string
  rssBytes: number
  /** After a full GC (the launcher's SIGUSR2 report): heap used + external. */
  heapBytes: number
  fds: number
}

/** PostgreSQL's own counters for the bench's database. */
export interface PgSample {
  /** xact_commit + xact_rollback of pg_stat_database. */
  transactions: number
  /** pg_stat_statements' calls, every statement of the database (BEGIN and COMMIT included). */
  statements: number
  /** pg_stat_activity: the connections to the database, by application_name. */
  connections: Record<string, number>
  sizeBytes: number
}

/** What the bench reads of an answer's body. */
export interface AnswerBody {
  code?: string
  /** A text, or a sent message (`key.id`). */
  message?: unknown
  details?: { reason?: string }
  instance_id?: string
  instance?: { state?: string; since?: number; linked?: boolean }
  base64?: string
  cluster?: { lease_alive?: boolean }
}

export interface Answer {
  status: number
  body: AnswerBody
  /** The node that ran it (`x-linkdesk-node`). */
  node?: string
}

/**
 * PostgreSQL (a throwaway cluster with its defaults, fsync on), the outside sandbox (`npm run sandbox`'s entry,
 * its own process), the webhook receiver and M `serve` nodes, every one on loopback, as a cluster is deployed.
 */
export class ScaleCluster {
  readonly nodes: ScaleNode[]
  private readonly logs = new Map<string, WriteStream>()

  private constructor(
    readonly pg: PostgresServer,
    readonly databaseUrl: string,
    readonly db: pg.Pool,
    readonly sandbox: OutsideSandbox,
    readonly receiver: ScaleReceiver,
    count: number,
    private readonly ttlMs: number,
    logDir: string,
  ) {
    this.nodes = Array.from({ length: count }, (_, n) => {
      const id = `node-${String.fromCharCode(97 + n)}`
      return { id, dataDir: newDataDir(), paused: false, logPath: join(logDir, `${id}.log`) }
    })
  }

  static async start(options: { nodes: number; ttlMs: number; logDir: string }): Promise<ScaleCluster> {
    compileServer()
    const server = await startPostgres({
      durable: true,
      settings: ['shared_preload_libraries=pg_stat_statements', 'max_connections=200'],
    })
    const databaseUrl = await server.createDatabase()
    const db = new pg.Pool({ connectionString: `${databaseUrl}?application_name=bench`, max: 3 })
    // A pool whose server restarts ends its idle connections with an error: the next query takes a new one.
    db.on('error', () => undefined)
    await db.query('CREATE EXTENSION IF NOT EXISTS pg_stat_statements')
    const sandbox = await startSandbox()
    const receiver = await ScaleReceiver.start()
    const cluster = new ScaleCluster(
      server,
      databaseUrl,
      db,
      sandbox,
      receiver,
      options.nodes,
      options.ttlMs,
      options.logDir,
    )
    await Promise.all(cluster.nodes.map((node) => cluster.startNode(node)))
    return cluster
  }

  /** `npm run serve` compiled (the bench launcher, for its memory report), with the cluster's store and id. */
  async startNode(node: ScaleNode): Promise<void> {
    node.paused = false
    let log = this.logs.get(node.id)
    if (!log) {
      log = createWriteStream(node.logPath, { flags: 'a' })
      this.logs.set(node.id, log)
    }
    log.write(`--- starting ${new Date().toISOString()}\n`)
    node.app = await startNode(
      node.id,
      [
        'out/headless/bench-app.js',
        ...['--sandbox-url', this.sandbox.controlUrl, '--port', '0', '--data-dir', node.dataDir],
        ...['--store', `${this.databaseUrl}?application_name=${node.id}`, '--node-id', node.id],
        ...['--lease-ttl-ms', String(this.ttlMs), '--send-interval-ms', '0'],
        ...['--requests-per-minute', '1000000', '--log-level', process.env.BENCH_APP_LOG ?? 'warn'],
      ],
      {
        waitFor: ['api'],
        env: { LINKDESK_ACCESS_TOKEN: SCALE_TOKEN },
        nodeArgs: ['--expose-gc'],
        timeoutMs: 180_000,
        compiled: true,
        stderrTo: log,
      },
    )
    log.write(`--- started ${new Date().toISOString()} pid ${node.app.pid}\n`)
  }

  /** The nodes running and not paused: the ones a client can call. */
  live(): ScaleNode[] {
    return this.nodes.filter((node) => node.app && node.app.child.exitCode === null && !node.paused)
  }

  api(node: ScaleNode): string {
    return node.app?.values.get('api') ?? ''
  }

  /** Calls an operation on a node with the operator token; network errors and timeouts answer status 0. */
  async call(
    node: ScaleNode,
    name: string,
    params: Record<string, unknown> = {},
    timeoutMs = 30_000,
  ): Promise<Answer> {
    try {
      const response = await fetch(`${this.api(node)}/${name}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${SCALE_TOKEN}` },
        body: JSON.stringify(params),
        signal: AbortSignal.timeout(timeoutMs),
      })
      const text = await response.text()
      return {
        status: response.status,
        body: text ? (JSON.parse(text) as AnswerBody) : {},
        node: response.headers.get('x-linkdesk-node') ?? undefined,
      }
    } catch (error) {
      return { status: 0, body: { code: (error as Error).name, message: (error as Error).message } }
    }
  }

  /** Like call, but fails unless the answer is 200. */
  async ok(node: ScaleNode, name: string, params: Record<string, unknown> = {}): Promise<Answer> {
    const answer = await this.call(node, name, params, 120_000)
    if (answer.status !== 200)
      throw new Error(`${name} on ${node.id}: ${answer.status} ${JSON.stringify(answer.body).slice(0, 300)}`)
    return answer
  }

  /** kill -9, and waits until it is gone. */
  async kill(node: ScaleNode): Promise<void> {
    const app = node.app
    if (!app || app.child.exitCode !== null) return
    const exited = new Promise((resolve) => app.child.once('exit', resolve))
    app.child.kill('SIGKILL')
    await exited
    node.app = undefined
  }

  /** SIGTERM (a drain: its instances are released to the others), and waits until it exited. */
  async drain(node: ScaleNode): Promise<void> {
    node.paused = true // no more calls from the bench while it leaves
    await node.app?.stop(300_000)
    node.app = undefined
  }

  pause(node: ScaleNode): void {
    node.app?.child.kill('SIGSTOP')
    node.paused = true
  }

  resume(node: ScaleNode): void {
    node.app?.child.kill('SIGCONT')
    node.paused = false
  }

  /** Live owners from the database: instance id → node id. */
  async owners(): Promise<Map<string, string>> {
    const { rows } = await this.db.query<{ instance_id: string; node_id: string }>(
      `SELECT o.instance_id, o.node_id FROM instance_owner o JOIN nodes n ON n.id = o.node_id
       WHERE n.expires_at > now()`,
    )
    return new Map(rows.map((row) => [row.instance_id, row.node_id]))
  }

  /** How many instances each node holds (in the nodes' order). */
  async loads(): Promise<number[]> {
    const held = [...(await this.owners()).values()]
    return this.nodes.map((node) => held.filter((owner) => owner === node.id).length)
  }

  /** Resident set (from /proc), heap after a full GC (the launcher's report) and open file descriptors. */
  async sample(node: ScaleNode): Promise<NodeSample | undefined> {
    const app = node.app
    if (!app || node.paused || app.child.exitCode !== null) return undefined
    const report = await new Promise<MemoryReport | undefined>((resolve) => {
      const timer = setTimeout(() => {
        off()
        resolve(undefined)
      }, 60_000)
      const off = app.onLine((line) => {
        if (!line.startsWith('bench-memory: ')) return
        clearTimeout(timer)
        off()
        resolve(JSON.parse(line.slice('bench-memory: '.length)) as MemoryReport)
      })
      app.child.kill('SIGUSR2')
    })
    if (!report) return undefined
    let fds = NaN
    try {
      fds = readdirSync(`/proc/${app.pid}/fd`).length
    } catch {
      // gone meanwhile
    }
    return { node: node.id, rssBytes: rssOf(app.pid), heapBytes: report.heapUsed + report.external, fds }
  }

  async pgSample(): Promise<PgSample> {
    const [stats, statements, activity, size] = await Promise.all([
      this.db.query<{ n: string }>(
        `SELECT (xact_commit + xact_rollback)::text AS n FROM pg_stat_database WHERE datname = current_database()`,
      ),
      this.db.query<{ n: string }>(
        `SELECT coalesce(sum(calls), 0)::text AS n FROM pg_stat_statements s
         JOIN pg_database d ON d.oid = s.dbid WHERE d.datname = current_database()`,
      ),
      this.db.query<{ app: string; n: string }>(
        `SELECT application_name AS app, count(*)::text AS n FROM pg_stat_activity
         WHERE datname = current_database() GROUP BY application_name`,
      ),
      this.db.query<{ n: string }>(`SELECT pg_database_size(current_database())::text AS n`),
    ])
    return {
      transactions: Number(stats.rows[0]?.n ?? NaN),
      statements: Number(statements.rows[0]?.n ?? NaN),
      connections: Object.fromEntries(activity.rows.map((row) => [row.app, Number(row.n)])),
      sizeBytes: Number(size.rows[0]?.n ?? NaN),
    }
  }

  /**
   * Whether the instance is connected, asked through a live node (its owner answers), since `since` (Unix ms; its
   * state's `since` is in seconds), on a node other than `notOn`: the receiver's view, when its event is late.
   */
  async connectedSince(instanceId: string, since: number, notOn?: string): Promise<boolean> {
    const live = this.live()
    const via = live[Math.floor(Math.random() * live.length)]
    if (!via) return false
    const answer = await this.call(via, 'instance', { instance_id: instanceId }, 10_000)
    const state = answer.body.instance
    return (
      answer.status === 200 &&
      state?.state === 'connected' &&
      (state.since ?? 0) * 1000 >= since - 1_000 &&
      answer.node !== undefined &&
      answer.node !== notOn
    )
  }

  /** Whether the node answers `health` with its lease alive. */
  async healthy(node: ScaleNode): Promise<boolean> {
    const answer = await this.call(node, 'health', {}, 10_000)
    return answer.status === 200 && answer.body.cluster?.lease_alive === true
  }

  /** Waits until every running node answers health with its lease alive; answers false after the timeout. */
  async allHealthy(timeoutMs: number): Promise<boolean> {
    const deadline = Date.now() + timeoutMs
    while (Date.now() < deadline) {
      const states = await Promise.all(this.live().map((node) => this.healthy(node)))
      if (states.every(Boolean)) return true
      await sleep(250)
    }
    return false
  }

  async stop(): Promise<void> {
    for (const node of this.nodes) {
      if (node.paused) this.resume(node)
      await node.app?.stop(30_000).catch(() => undefined)
    }
    for (const log of this.logs.values()) log.end()
    await this.sandbox.stop()
    await this.receiver.close()
    await this.db.end().catch(() => undefined)
    this.pg.stop()
  }
}

/** The resident set of a process, from /proc (bytes). */
function rssOf(pid: number): number {
  const kb = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1]
  return Number(kb ?? NaN) * 1024
}
