import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before } from 'node:test'
import jsQR from 'jsqr'
// @ts-expect-error pngjs ships no type declarations
import { PNG } from 'pngjs'
import { type Core, type CoreDeps, createCore } from '../index'
import { type ConfigInput, parseConfig, type Timings } from '../config'
import type { InstanceStatus } from '../contract/instance-state'
import type { AddressInfo } from 'node:net'
import { testDatabaseFor, testStore } from './test-store'
import { silentLogger } from '../logger'
import { createControlApp, createSandbox, type Sandbox } from '@linkdesk/sandbox'

export const TOKEN = 'test-token-0123456789'

/** Short timers so the suite never waits for the production ones. */
export const FAST_TIMINGS: Partial<Timings> = {
  keepAliveIntervalMs: 1000,
  reconnectBaseMs: 100,
  reconnectMaxMs: 1000,
  restoreStaggerMs: 50,
  operationWaitMs: 20_000,
}

export function tempDataDir(): string {
  return mkdtempSync(join(tmpdir(), 'linkdesk-instances-'))
}

/** What a test core is started with: its configuration, and timings of its own. */
type CoreInput = ConfigInput & { timings?: Partial<Timings> }

/**
 * A core on port 0 with the test token, silent logs and fast timings; with LINKDESK_TEST_STORE=postgres (the
 * PostgreSQL pass of `npm test`) on a PostgreSQL database of its data folder unless the test names a store.
 */
export async function startCore(input: CoreInput, deps: CoreDeps = {}): Promise<Core> {
  // Tests never ask WhatsApp's site for its version; sandbox cores read the sandbox's document.
  const offline = input.sandbox || input.sandboxUrl ? {} : { waVersionUrl: '' }
  const config = parseConfig({
    ...offline,
    port: 0,
    accessToken: TOKEN,
    logLevel: process.env.LINKDESK_TEST_LOG ?? 'silent',
    ...input,
    timings: { ...FAST_TIMINGS, ...input.timings },
  })
  if (input.store === undefined && testStore() === 'postgres')
    config.store = { kind: 'postgres', url: await testDatabaseFor(config.dataDir) }
  return createCore(config, deps)
}

/** Calls a v1 operation over HTTP (POST with a JSON body) and answers the HTTP status and the body. */
export async function call(
  apiBase: string,
  name: string,
  params: Record<string, unknown> = {},
): Promise<{ status: number; body: any }> {
  const response = await fetch(`${apiBase}/${name}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ access_token: TOKEN, ...params }),
  })
  return { status: response.status, body: await response.json() }
}

/** Like call, but fails unless the answer is a success. */
export async function ok(apiBase: string, name: string, params: Record<string, unknown> = {}): Promise<any> {
  const { status, body } = await call(apiBase, name, params)
  if (status !== 200 || body.status !== 'success')
    throw new Error(`${name}: ${status} ${JSON.stringify(body)}`)
  return body
}

/** The text a PNG data URI's QR code encodes. */
export function decodeQr(dataUri: string): string {
  const prefix = 'data:image/png;base64,'
  if (!dataUri.startsWith(prefix)) throw new Error('not a PNG data URI')
  const png = PNG.sync.read(Buffer.from(dataUri.slice(prefix.length), 'base64'))
  const code = jsQR(new Uint8ClampedArray(png.data), png.width, png.height)
  if (!code) throw new Error('no QR code in the image')
  return code.data
}

/** Resolves with the first status of `instanceId` (now or later) that passes `check`; rejects after a timeout. */
export function waitForStatus(
  core: Core,
  instanceId: string,
  check: (status: InstanceStatus) => boolean,
  what: string,
  timeoutMs = 20_000,
): Promise<InstanceStatus> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      unsubscribe()
      reject(
        new Error(
          `${instanceId}: no ${what} within ${timeoutMs} ms (now ${JSON.stringify(core.instances.status(instanceId))})`,
        ),
      )
    }, timeoutMs)
    const test = (status: InstanceStatus) => {
      if (!check(status)) return
      clearTimeout(timer)
      unsubscribe()
      resolve(status)
    }
    const unsubscribe = core.instances.onStatus((id, status) => id === instanceId && test(status))
    test(core.instances.status(instanceId))
  })
}

/** Records the state an instance is in now and every one it goes through after, for assertions on the path taken. */
export function recordStates(core: Core, instanceId: string): string[] {
  const states: string[] = [core.instances.status(instanceId).state]
  core.instances.onStatus((id, status) => {
    if (id === instanceId && states.at(-1) !== status.state) states.push(status.state)
  })
  return states
}

/**
 * A sandbox outside the app, reached through its control API as `npm run sandbox`'s is: cores started and
 * stopped against it (`sandboxUrl`) find the same phones, as a user's phone outlives the app.
 */
export async function outsideSandbox(): Promise<{
  sandbox: Sandbox
  controlUrl: string
  close(): Promise<void>
}> {
  const sandbox = await createSandbox({ logger: silentLogger() })
  const app = createControlApp(sandbox.control, { logger: silentLogger() })
  await app.listen({ host: '127.0.0.1', port: 0 })
  const controlUrl = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}/sandbox`
  return {
    sandbox,
    controlUrl,
    close: async () => {
      await app.close()
      await sandbox.close()
    },
  }
}

/** A test file's outside sandbox (see outsideSandbox), with fresh data folders and the cores that reach it. */
export interface OutsideSandboxFile {
  sandbox: Sandbox
  controlUrl: string
  /** A new data folder, removed with the sandbox after the file's tests. */
  dataDir(): string
  /** A core that reaches the sandbox with `--sandbox-url`. */
  startCore(input: CoreInput): Promise<Core>
  /** Creates an instance over the API at `api` and links the sandbox's phone `phone` to it; answers its id. */
  link(api: string, phone: string, params?: Record<string, unknown>): Promise<string>
}

/**
 * Starts an outside sandbox before the file's tests and closes it after them, removing the data folders they
 * took; `sandbox` and `controlUrl` are set once the tests run.
 */
export function outsideSandboxForFile(): OutsideSandboxFile {
  const dirs: string[] = []
  let close = async () => {}
  const file = {
    dataDir() {
      const dir = tempDataDir()
      dirs.push(dir)
      return dir
    },
    startCore: (input: CoreInput) => startCore({ ...input, sandboxUrl: file.controlUrl }),
    async link(api: string, phone: string, params: Record<string, unknown> = {}) {
      const id = (await ok(api, 'create_instance', params)).instance_id
      const { base64 } = await ok(api, 'generate_qrcode', { instance_id: id })
      await file.sandbox.control.link({ qr: decodeQr(base64), phone })
      return id
    },
  } as OutsideSandboxFile
  before(async () => {
    ;({ sandbox: file.sandbox, controlUrl: file.controlUrl, close } = await outsideSandbox())
  })
  after(async () => {
    await close()
    dirs.forEach((dir) => rmSync(dir, { recursive: true, force: true }))
  })
  return file
}
