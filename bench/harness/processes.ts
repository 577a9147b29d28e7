import { execFileSync, spawn, type ChildProcess } from 'node:child_process'
import { fileURLToPath } from 'node:url'

export const REPO = fileURLToPath(new URL('../../', import.meta.url))

let compiledOnce = false

/**
 * Builds the headless entries (`npm run build:server`) once per bench run: the app and the sandbox run as
 * compiled JavaScript, as `npm run serve` and `npm run sandbox` run them.
 */
export function compileServer(): void {
  if (compiledOnce) return
  execFileSync('npm', ['run', '--silent', 'build:server'], { cwd: REPO, stdio: 'inherit' })
  compiledOnce = true
}

/** A child process whose stdout lines of the form `key: value` are collected. */
export interface Started {
  child: ChildProcess
  pid: number
  /** The first value printed for each key. */
  values: Map<string, string>
  /** Every stdout line, for the launcher's memory reports. */
  onLine(listener: (line: string) => void): () => void
  /** SIGTERM, then SIGKILL after a grace period; resolves once it has exited. */
  stop(graceMs?: number): Promise<void>
}

/**
 * Spawns `node [nodeArgs] --import tsx <args>` (without tsx for compiled scripts) in the repo and resolves once every key in `waitFor` has been
 * printed as `key: value`; rejects if it exits first or takes longer than `timeoutMs`.
 */
export function startNode(
  name: string,
  args: string[],
  options: {
    waitFor: string[]
    nodeArgs?: string[]
    env?: NodeJS.ProcessEnv
    timeoutMs?: number
    /** The script is compiled JavaScript (`npm run build:server`): no TypeScript loader. */
    compiled?: boolean
    /** Where its stderr goes too, from its first line (a start that hangs shows why). */
    stderrTo?: { write(chunk: string): unknown }
  },
): Promise<Started> {
  const loader = options.compiled ? [] : ['--import', 'tsx']
  const child = spawn(process.execPath, [...(options.nodeArgs ?? []), ...loader, ...args], {
    cwd: REPO,
    env: { ...process.env, ...options.env },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  const values = new Map<string, string>()
  const listeners = new Set<(line: string) => void>()
  const stderr: string[] = []
  let buffered = ''
  child.stdout?.setEncoding('utf8').on('data', (chunk: string) => {
    buffered += chunk
    const lines = buffered.split('\n')
    buffered = lines.pop() ?? ''
    for (const line of lines) {
      const match = /^([a-z-]+): (.*)$/.exec(line.trim())
      if (match?.[1] && match[2] !== undefined && !values.has(match[1])) values.set(match[1], match[2])
      for (const listener of listeners) listener(line)
    }
  })
  child.stderr?.setEncoding('utf8').on('data', (chunk: string) => {
    stderr.push(chunk)
    if (stderr.length > 50) stderr.shift()
    options.stderrTo?.write(chunk)
    if (process.env.BENCH_VERBOSE) process.stderr.write(`[${name}] ${chunk}`)
  })
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()))
  const stop = async (graceMs = 5_000): Promise<void> => {
    if (child.exitCode !== null || child.signalCode !== null) return
    child.kill('SIGTERM')
    const timer = setTimeout(() => child.kill('SIGKILL'), graceMs)
    await exited
    clearTimeout(timer)
  }
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      void stop(0)
      reject(
        new Error(
          `${name} did not print ${options.waitFor.join(', ')} within ${options.timeoutMs ?? 30_000} ms: ` +
            stderr.join('').slice(-1000),
        ),
      )
    }, options.timeoutMs ?? 30_000)
    const check = (): void => {
      if (!options.waitFor.every((key) => values.has(key))) return
      clearTimeout(timer)
      listeners.delete(check)
      resolve({
        child,
        pid: child.pid ?? 0,
        values,
        onLine: (listener) => {
          listeners.add(listener)
          return () => listeners.delete(listener)
        },
        stop,
      })
    }
    listeners.add(check)
    child.once('exit', (code, signal) => {
      clearTimeout(timer)
      reject(
        new Error(`${name} exited (${code ?? signal}) before it was ready: ${stderr.join('').slice(-2000)}`),
      )
    })
  })
}
