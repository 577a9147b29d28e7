import { execFile, execFileSync, spawnSync } from 'node:child_process'
import { chmodSync, chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, describe } from 'node:test'
import pg from 'pg'
import { silentLogger } from '../logger'
import { migrate } from '../store/postgres/schema'
import { freePort, missingServer } from './system-server'

/** A throwaway PostgreSQL cluster for tests: its own data folder, on loopback, fsync off. */
export interface PostgresServer {
  /** The cluster's address, for the `postgres` database (as the trusted `linkdesk` superuser). */
  url: string
  /** A new empty database on the cluster, and its address. */
  createDatabase(): Promise<string>
  /** Stops the server (`pg_ctl -m fast`: every connection is ended) and starts it again on the same port. */
  restart(): Promise<void>
  stop(): void
}

/**
 * Where Debian's PostgreSQL binaries are (the newest version installed), or LINKDESK_PG_BIN; undefined when
 * PostgreSQL is not installed.
 */
function binDir(): string | undefined {
  if (process.env.LINKDESK_PG_BIN) return process.env.LINKDESK_PG_BIN
  const root = '/usr/lib/postgresql'
  if (!existsSync(root)) return undefined
  const versions = readdirSync(root)
    .filter((version) => existsSync(join(root, version, 'bin', 'initdb')))
    .sort((a, b) => Number(b) - Number(a))
  return versions[0] && join(root, versions[0], 'bin')
}

/**
 * Why PostgreSQL tests cannot run here, or undefined when they can. Under CI a missing PostgreSQL is a
 * failure (.ci/run installs it), never a skip.
 */
export function postgresMissing(): string | undefined {
  if (binDir()) return undefined
  return missingServer('PostgreSQL is not installed (apt-get install postgresql)')
}

/** Runs a PostgreSQL binary, as the `postgres` user when this process is root (initdb refuses root). */
function run(bin: string, args: string[]): void {
  const asRoot = process.getuid?.() === 0
  const [command, argv] = asRoot ? ['runuser', ['-u', 'postgres', '--', bin, ...args]] : [bin, args]
  const result = spawnSync(command, argv, { encoding: 'utf8' })
  if (result.status !== 0)
    throw new Error(`${bin} ${args.join(' ')} failed: ${result.stderr || result.stdout || result.error}`)
}

/** `run` without blocking this process (its servers keep answering while PostgreSQL restarts). */
function runAsync(bin: string, args: string[]): Promise<void> {
  const asRoot = process.getuid?.() === 0
  const [command, argv] = asRoot ? ['runuser', ['-u', 'postgres', '--', bin, ...args]] : [bin, args]
  return new Promise((resolve, reject) =>
    execFile(command, argv, { encoding: 'utf8' }, (error, stdout, stderr) =>
      error
        ? reject(new Error(`${bin} ${args.join(' ')} failed: ${stderr || stdout || error.message}`))
        : resolve(),
    ),
  )
}

/**
 * Starts a fresh cluster in a temporary folder; `stop` ends it and deletes the folder. Tests run it with
 * fsync off; `durable` keeps PostgreSQL's defaults (every commit flushed), as a benchmark must; `settings`
 * are more `name=value` server settings.
 */
export async function startPostgres(
  options: { durable?: boolean; settings?: string[] } = {},
): Promise<PostgresServer> {
  const bin = binDir()
  if (!bin) throw new Error(postgresMissing() ?? 'PostgreSQL is not installed')
  const dir = mkdtempSync(join(tmpdir(), 'linkdesk-pg-'))
  if (process.getuid?.() === 0) {
    const id = (flag: string) => Number(execFileSync('id', [flag, 'postgres'], { encoding: 'utf8' }))
    chownSync(dir, id('-u'), id('-g'))
  }
  chmodSync(dir, 0o700)
  const data = join(dir, 'data')
  run(join(bin, 'initdb'), ['-D', data, '-U', 'linkdesk', '--auth=trust', '-E', 'UTF8', '--no-sync'])
  const port = await freePort()
  const fast = ['-c fsync=off', '-c synchronous_commit=off', '-c full_page_writes=off']
  const settings = [
    `-p ${port}`,
    `-k ${dir}`,
    '-c listen_addresses=127.0.0.1',
    ...(options.durable ? [] : fast),
    ...(options.settings ?? []).map((setting) => `-c ${setting}`),
  ]
  run(join(bin, 'pg_ctl'), ['-D', data, '-o', settings.join(' '), '-l', join(dir, 'log'), '-w', 'start'])
  const url = `postgres://linkdesk@127.0.0.1:${port}/postgres`
  let databases = 0
  return {
    url,
    async createDatabase() {
      databases += 1
      const name = `test_${databases}`
      const client = new pg.Client({ connectionString: url })
      await client.connect()
      try {
        await client.query(`CREATE DATABASE ${name}`)
      } finally {
        await client.end()
      }
      return `postgres://linkdesk@127.0.0.1:${port}/${name}`
    },
    restart: () =>
      runAsync(join(bin, 'pg_ctl'), ['-D', data, '-l', join(dir, 'log'), '-m', 'fast', '-w', 'restart']),
    stop() {
      try {
        run(join(bin, 'pg_ctl'), ['-D', data, '-m', 'immediate', 'stop'])
      } finally {
        rmSync(dir, { recursive: true, force: true })
      }
    },
  }
}

/** A pool on a new database of the server, with the schema migrated; the caller ends it. */
export async function migratedPool(server: PostgresServer): Promise<pg.Pool> {
  const pool = new pg.Pool({ connectionString: await server.createDatabase() })
  await migrate(pool, silentLogger())
  return pool
}

/**
 * A suite run against a throwaway cluster started for it: `pool()` is a pool on a migrated database of it.
 * Skipped without PostgreSQL, except under CI (see postgresMissing).
 */
export function postgresSuite(name: string, body: (pool: () => pg.Pool) => void): void {
  describe(name, { skip: postgresMissing() }, () => {
    let server: PostgresServer | undefined
    let pool: pg.Pool | undefined
    before(async () => {
      server = await startPostgres()
      pool = await migratedPool(server)
    })
    after(async () => {
      await pool?.end()
      server?.stop()
    })
    body(() => {
      if (!pool) throw new Error('the PostgreSQL suite has not started')
      return pool
    })
  })
}
