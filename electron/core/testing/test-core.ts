import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createCore, type Core, type CoreDeps } from '../index'
import { type ConfigInput, parseConfig } from '../config'
import { silentLogger } from '../logger'
import { testDatabaseFor, testStore } from './test-store'

export const TEST_TOKEN = 'test-token-0123456789'

export interface TestCore {
  core: Core
  base: string
  dataDir: string
  /** Sends a request to the API and parses the JSON answer. */
  call(
    path: string,
    init?: RequestInit & { json?: unknown },
  ): Promise<{ status: number; body: any; headers: Headers }>
  stop(): Promise<void>
}

/** Starts a real core on port 0 in a fresh temp data folder, with TEST_TOKEN registered. */
export async function startTestCore(input: ConfigInput = {}, deps: CoreDeps = {}): Promise<TestCore> {
  const dataDir = input.dataDir ?? mkdtempSync(join(tmpdir(), 'linkdesk-test-'))
  // Tests never ask WhatsApp's site for its version; sandbox cores read the sandbox's document.
  const offline = input.sandbox || input.sandboxUrl ? {} : { waVersionUrl: '' }
  const config = parseConfig({
    port: 0,
    accessToken: TEST_TOKEN,
    logLevel: process.env.LINKDESK_TEST_LOG ?? 'silent',
    ...offline,
    ...input,
    dataDir,
  })
  // LINKDESK_TEST_STORE=postgres: the same tests on a PostgreSQL database of this data folder.
  if (input.store === undefined && testStore() === 'postgres')
    config.store = { kind: 'postgres', url: await testDatabaseFor(dataDir) }
  // LINKDESK_TEST_LOG=debug (or another level) writes the core's log to stderr.
  const logger = process.env.LINKDESK_TEST_LOG ? {} : { logger: silentLogger() }
  const core = await createCore(config, { ...logger, ...deps })
  const call: TestCore['call'] = async (path, init = {}) => {
    const { json, ...rest } = init
    const headers = new Headers(rest.headers)
    if (json !== undefined) headers.set('content-type', 'application/json')
    const response = await fetch(`${core.apiBase}${path}`, {
      ...rest,
      headers,
      body: json !== undefined ? JSON.stringify(json) : rest.body,
    })
    const text = await response.text()
    let body: unknown = text
    try {
      body = JSON.parse(text)
    } catch {
      // not JSON: keep the text
    }
    return { status: response.status, body, headers: response.headers }
  }
  return {
    core,
    base: core.apiBase,
    dataDir,
    call,
    stop: async () => {
      await core.close()
      if (input.dataDir === undefined) rmSync(dataDir, { recursive: true, force: true })
    },
  }
}
