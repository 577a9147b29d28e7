import { execFile, spawn, type ChildProcess } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { connect as connectSocket } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { freePort, missingServer } from './system-server'

/** Where Debian's packages put the brokers' programs. */
const RABBITMQ_SERVER = '/usr/lib/rabbitmq/bin/rabbitmq-server'
const NATS_SERVER = '/usr/sbin/nats-server'
const RABBITMQCTL = '/usr/lib/rabbitmq/bin/rabbitmqctl'

/**
 * Why a broker's tests cannot run here, or undefined when they can. Under CI a missing broker is a failure
 * (.ci/run installs both), never a skip.
 */
export function brokerMissing(kind: 'rabbitmq' | 'nats'): string | undefined {
  const [program, pkg] =
    kind === 'rabbitmq' ? [RABBITMQ_SERVER, 'rabbitmq-server'] : [NATS_SERVER, 'nats-server']
  if (existsSync(program)) return undefined
  return missingServer(`${pkg} is not installed (apt-get install ${pkg})`)
}

function accepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connectSocket(port, '127.0.0.1')
    socket.once('connect', () => {
      socket.destroy()
      resolve(true)
    })
    socket.once('error', () => resolve(false))
  })
}

/** A broker run by a test: its address, and stop/start on the same data folder (what it stored is kept). */
export interface BrokerServer {
  /** The address a sink is given (with credentials for RabbitMQ). */
  url: string
  port: number
  /** Ends the broker (SIGTERM, as a service manager stops it) and resolves once it has exited. */
  stop(): Promise<void>
  /** Starts it again on the same port and data folder; resolves once it takes connections. */
  start(): Promise<void>
  /** Stops it and removes its folder. */
  dispose(): Promise<void>
  /** What it printed, for a failing test's message. */
  output(): string
}

/** Runs a broker as its own process group; `ready` tells when it takes connections. */
function brokerProcess(
  name: string,
  command: string,
  args: string[],
  env: NodeJS.ProcessEnv,
  dir: string,
  port: number,
  ready: () => Promise<boolean>,
  startupMs: number,
): Omit<BrokerServer, 'url'> {
  let child: ChildProcess | undefined
  let exited: Promise<void> = Promise.resolve()
  let log = ''
  const start = async () => {
    if (child) throw new Error(`${name} is already running`)
    const started = spawn(command, args, { env, cwd: dir, detached: true, stdio: ['ignore', 'pipe', 'pipe'] })
    child = started
    const append = (chunk: Buffer) => {
      log = (log + chunk.toString()).slice(-20_000)
    }
    started.stdout?.on('data', append)
    started.stderr?.on('data', append)
    exited = new Promise((resolve) => started.once('exit', () => resolve()))
    let gone = false
    void exited.then(() => (gone = true))
    const deadline = Date.now() + startupMs
    while (!(await ready())) {
      if (gone) throw new Error(`${name} exited while starting:\n${log}`)
      if (Date.now() > deadline)
        throw new Error(`${name} did not take connections within ${startupMs} ms:\n${log}`)
      await new Promise((resolve) => setTimeout(resolve, 200))
    }
  }
  const signal = (which: NodeJS.Signals) => {
    if (child?.pid === undefined) return
    try {
      process.kill(-child.pid, which)
    } catch {
      // Already gone.
    }
  }
  const stop = async () => {
    if (!child) return
    signal('SIGTERM')
    const timer = setTimeout(() => signal('SIGKILL'), 30_000)
    await exited
    clearTimeout(timer)
    // The group's other processes (the Erlang port helper) end with it; make sure nothing holds the port.
    signal('SIGKILL')
    child = undefined
    const deadline = Date.now() + 10_000
    while ((await accepts(port)) && Date.now() < deadline)
      await new Promise((resolve) => setTimeout(resolve, 100))
  }
  return {
    port,
    start,
    stop,
    async dispose() {
      await stop()
      rmSync(dir, { recursive: true, force: true })
    },
    output: () => log,
  }
}

/** A RabbitMQ node run by a test, with the operator's command line for it. */
export interface RabbitServer extends BrokerServer {
  /** Runs rabbitmqctl against this node (add_user, set_permissions, …) and answers what it printed. */
  ctl(...args: string[]): Promise<string>
}

/**
 * A throwaway RabbitMQ node (Debian's rabbitmq-server): its own folder for its database, logs and Erlang
 * cookie, a unique node name, loopback ports, no plugins; the default guest user (allowed from loopback).
 */
export async function startRabbitMq(): Promise<RabbitServer> {
  const missing = brokerMissing('rabbitmq')
  if (missing) throw new Error(missing)
  const dir = mkdtempSync(join(tmpdir(), 'linkdesk-rabbitmq-'))
  mkdirSync(join(dir, 'log'))
  writeFileSync(join(dir, 'enabled_plugins'), '[].\n')
  const port = await freePort()
  const distPort = await freePort()
  const node = `linkdesk-test-${randomBytes(4).toString('hex')}@localhost`
  const env = {
    ...process.env,
    HOME: dir,
    RABBITMQ_NODENAME: node,
    RABBITMQ_NODE_IP_ADDRESS: '127.0.0.1',
    RABBITMQ_NODE_PORT: String(port),
    RABBITMQ_DIST_PORT: String(distPort),
    RABBITMQ_MNESIA_BASE: join(dir, 'mnesia'),
    RABBITMQ_LOG_BASE: join(dir, 'log'),
    RABBITMQ_ENABLED_PLUGINS_FILE: join(dir, 'enabled_plugins'),
    RABBITMQ_CONFIG_FILE: join(dir, 'rabbitmq'),
    RABBITMQ_ADVANCED_CONFIG_FILE: join(dir, 'advanced.config'),
    RABBITMQ_PID_FILE: join(dir, 'rabbitmq.pid'),
  }
  const server = brokerProcess(
    'rabbitmq-server',
    RABBITMQ_SERVER,
    [],
    env,
    dir,
    port,
    () => accepts(port),
    120_000,
  )
  await server.start()
  const ctl = (...args: string[]) =>
    new Promise<string>((resolve, reject) =>
      execFile(RABBITMQCTL, ['-n', node, ...args], { env, timeout: 120_000 }, (error, stdout, stderr) =>
        error
          ? reject(new Error(`rabbitmqctl ${args.join(' ')}: ${stderr || error.message}`))
          : resolve(stdout),
      ),
    )
  return { ...server, ctl, url: `amqp://guest:guest@127.0.0.1:${port}` }
}

/** A throwaway NATS server with JetStream (Debian's nats-server): its own store folder, on loopback. */
export async function startNats(): Promise<BrokerServer> {
  const missing = brokerMissing('nats')
  if (missing) throw new Error(missing)
  const dir = mkdtempSync(join(tmpdir(), 'linkdesk-nats-'))
  const port = await freePort()
  const args = ['-js', '-sd', join(dir, 'store'), '-a', '127.0.0.1', '-p', String(port)]
  const server = brokerProcess(
    'nats-server',
    NATS_SERVER,
    args,
    process.env,
    dir,
    port,
    () => accepts(port),
    60_000,
  )
  await server.start()
  return { ...server, url: `nats://127.0.0.1:${port}` }
}
