import { type ChildProcess, spawn } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createInterface } from 'node:readline'
import { fileURLToPath } from 'node:url'

export const REPO_ROOT = fileURLToPath(new URL('../..', import.meta.url))

/** The headless server as a user starts it (`npm run serve`), on a free port with a fresh data folder. */
export interface HeadlessServer {
  /** e.g. http://127.0.0.1:41234/api/v1 */
  apiBase: string
  /** The one-time login URL the server printed. */
  loginUrl: string
  stop(): Promise<void>
}

/** tsx compiles the core as it loads: on two loaded cores that alone has taken over 30 s. */
const STARTUP_TIMEOUT_MS = 90_000

/** What a start may fix: the access token it registers, and (to restart one) its data folder and port. */
export interface HeadlessOptions {
  accessToken?: string
  /** A data folder of the caller's, kept when the server stops. */
  dataDir?: string
  port?: number
}

/** Starts `electron/headless/serve.ts` and waits for the lines that say where its API and login URL are. */
export async function startHeadlessServer(
  extraArgs: string[] = [],
  options: HeadlessOptions = {},
): Promise<HeadlessServer> {
  const dataDir = options.dataDir ?? mkdtempSync(join(tmpdir(), 'linkdesk-e2e-'))
  const child = spawn(
    process.execPath,
    [
      '--import',
      'tsx',
      'electron/headless/serve.ts',
      '--port',
      String(options.port ?? 0),
      '--data-dir',
      dataDir,
      '--log-level',
      'warn',
      ...extraArgs,
    ],
    {
      cwd: REPO_ROOT,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, LINKDESK_ACCESS_TOKEN: options.accessToken ?? '' },
    },
  )
  const cleanUp = () => {
    if (options.dataDir === undefined) rmSync(dataDir, { recursive: true, force: true })
  }
  try {
    const { apiBase, loginUrl } = await readAddresses(child)
    return {
      apiBase,
      loginUrl,
      stop: async () => {
        await stopChild(child)
        cleanUp()
      },
    }
  } catch (error) {
    await stopChild(child)
    cleanUp()
    throw error
  }
}

function readAddresses(child: ChildProcess): Promise<{ apiBase: string; loginUrl: string }> {
  return new Promise((resolve, reject) => {
    let apiBase: string | undefined
    let stderr = ''
    const timer = setTimeout(
      () => fail(new Error('the server did not print its addresses in time')),
      STARTUP_TIMEOUT_MS,
    )
    const fail = (error: Error) => {
      clearTimeout(timer)
      reject(new Error(`${error.message}\n${stderr}`))
    }
    child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()))
    child.once('exit', (code) => fail(new Error(`the server exited with ${code} before it was ready`)))
    createInterface({ input: child.stdout! }).on('line', (line) => {
      const [, key, value] = /^([\w-]+): (\S+)$/.exec(line) ?? []
      if (key === 'api') apiBase = value
      if (key === 'ui-login' && apiBase && value) {
        clearTimeout(timer)
        resolve({ apiBase, loginUrl: value })
      }
    })
  })
}

function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve()
  return new Promise((resolve) => {
    child.once('exit', () => resolve())
    child.kill('SIGTERM')
  })
}
