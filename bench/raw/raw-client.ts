import { fork, type ChildProcess } from 'node:child_process'
import { join } from 'node:path'
import { compileServer, REPO } from '../harness/processes'
import type { RawCommand, RawMemory, RawSendResult } from './raw-protocol'

/** A raw Baileys process (raw-worker.ts) and typed calls into it. */
export class RawProcess {
  private nextId = 1
  private readonly pending = new Map<number, { resolve(value: unknown): void; reject(error: Error): void }>()

  private constructor(private readonly child: ChildProcess) {
    child.on('message', (message: { id?: number; result?: unknown; error?: string }) => {
      const waiting = message.id === undefined ? undefined : this.pending.get(message.id)
      if (!waiting || message.id === undefined) return
      this.pending.delete(message.id)
      if (message.error !== undefined) waiting.reject(new Error(message.error))
      else waiting.resolve(message.result)
    })
    child.once('exit', (code) => {
      for (const waiting of this.pending.values()) waiting.reject(new Error(`raw worker exited (${code})`))
      this.pending.clear()
    })
  }

  get pid(): number {
    return this.child.pid ?? 0
  }

  /** Forks the raw worker; with `profileDir` it writes a CPU profile there when it stops. */
  static async start(
    wsUrl: string,
    rootKeyHex: string,
    options: { profileDir?: string } = {},
  ): Promise<RawProcess> {
    // Compiled, as the app and the sandbox are, so that neither side pays for a TypeScript loader.
    compileServer()
    const child = fork(join(REPO, 'out/headless/raw-worker.js'), [], {
      cwd: REPO,
      execArgv: [
        '--expose-gc',
        ...(options.profileDir ? ['--cpu-prof', '--cpu-prof-dir', options.profileDir] : []),
      ],
      stdio: ['ignore', 'ignore', process.env.BENCH_VERBOSE ? 'inherit' : 'ignore', 'ipc'],
    })
    await new Promise<void>((resolve, reject) => {
      child.once('message', () => resolve())
      child.once('exit', (code) => reject(new Error(`raw worker exited (${code}) before it was ready`)))
    })
    const raw = new RawProcess(child)
    await raw.call({ cmd: 'init', wsUrl, rootKeyHex })
    return raw
  }

  call<T = unknown>(command: RawCommand, timeoutMs = 300_000): Promise<T> {
    const id = this.nextId++
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.pending.delete(id)
        reject(new Error(`raw worker: ${command.cmd} took over ${timeoutMs} ms`))
      }, timeoutMs)
      this.pending.set(id, {
        resolve: (value) => {
          clearTimeout(timer)
          resolve(value as T)
        },
        reject: (error) => {
          clearTimeout(timer)
          reject(error)
        },
      })
      this.child.send({ id, command })
    })
  }

  /** Links one account to the sandbox phone `phone`: times in ms like the app side's. */
  async link(
    link: (qr: string, phone: string) => Promise<void>,
    phone: string,
  ): Promise<{ slot: number; qrMs: number; scanToOpenMs: number; totalMs: number }> {
    const started = performance.now()
    const { slot, qr, qrMs } = (await this.call({ cmd: 'create' })) as {
      slot: number
      qr: string
      qrMs: number
    }
    const scanAt = performance.now()
    await link(qr, phone)
    await this.call<unknown>({ cmd: 'open', slot, count: 1 })
    const openAt = performance.now()
    return { slot, qrMs, scanToOpenMs: openAt - scanAt, totalMs: openAt - started }
  }

  send(
    slot: number,
    to: string | string[],
    count: number,
    concurrency: number,
    mode: 'written' | 'acked',
  ): Promise<RawSendResult> {
    return this.call({ cmd: 'send', slot, to, count, concurrency, mode })
  }

  memory(): Promise<RawMemory> {
    return this.call({ cmd: 'memory' })
  }

  async stop(): Promise<void> {
    if (this.child.exitCode !== null) return
    const exited = new Promise((resolve) => this.child.once('exit', resolve))
    const timer = setTimeout(() => this.child.kill('SIGKILL'), 5_000)
    await this.call({ cmd: 'exit' }, 5_000).catch(() => undefined)
    await exited
    clearTimeout(timer)
  }
}
