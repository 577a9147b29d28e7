import { WA_CERT_DETAILS } from '@whiskeysockets/baileys'
import { after, before } from 'node:test'
import pino from 'pino'
import { createSandbox, type Sandbox, type SandboxInboxEntry, type SandboxOptions } from '../index'
import { quietLibsignal } from './quiet-libsignal'
import { releaseLongTimers } from './release-long-timers'
import { SandboxClient, type SandboxClientOptions } from './sandbox-client'

/**
 * Starts a sandbox for a test file and makes this process's Baileys trust its root key, as the app does
 * in sandbox mode. One sandbox per process at a time: the root key is a process-wide Baileys setting.
 * With a `stateDir`, the sandbox keeps its state there, and a later one started on it continues it.
 */
export async function startTestSandbox(
  timings?: SandboxOptions['timings'],
  stateDir?: string,
): Promise<Sandbox> {
  quietLibsignal()
  releaseLongTimers()
  const logger = pino({ level: process.env.SANDBOX_LOG ?? 'silent' })
  const sandbox = await createSandbox({ logger, stateDir, timings: { receiptDelayMs: 50, ...timings } })
  WA_CERT_DETAILS.PUBLIC_KEY = Buffer.from(sandbox.endpoint.rootPublicKey)
  return sandbox
}

/** A Baileys client that shows a QR, gets it scanned by `phone`, restarts (515) and is open. */
export async function linkedClient(
  sandbox: Sandbox,
  phone: string,
  options: Partial<SandboxClientOptions> = {},
): Promise<SandboxClient> {
  const client = new SandboxClient({ endpoint: sandbox.endpoint, ...options }).start()
  const qr = await client.waitForQr()
  await sandbox.control.link({ qr, phone, name: `Account ${phone}` })
  await client.waitForOpen()
  // The initial history sync ends the client's first-login buffering.
  await client.waitFor(() => client.historySets > 0, 'initial history sync')
  return client
}

/** The inbox entry with that id, already there or arriving within the timeout. */
export async function inboxEntry(
  sandbox: Sandbox,
  phone: string,
  id: string,
  timeoutMs = 10_000,
): Promise<SandboxInboxEntry> {
  const existing = sandbox.control.inbox(phone).find((entry) => entry.id === id)
  if (existing) return existing
  const { entry } = await sandbox.control.events.waitFor(
    'message',
    (event) => event.phone === phone && event.entry.id === id,
    timeoutMs,
  )
  return entry
}

/** A test file's sandbox and its device, usable once the file's `before` has run. */
export interface LinkedDeviceFixture {
  readonly sandbox: Sandbox
  readonly device: SandboxClient
}

/**
 * Registers the usual `before`/`after` of a test file: a sandbox with these contacts, and a device linked
 * as `phone`; both are stopped after the file's tests.
 */
export function linkedDeviceFixture(
  phone: string,
  contacts: Array<{ phone: string; name: string; business?: boolean }>,
  options: Partial<SandboxClientOptions> = {},
): LinkedDeviceFixture {
  let started: { sandbox: Sandbox; device: SandboxClient } | undefined
  const current = () => {
    if (!started) throw new Error('the sandbox fixture is used before its test file started it')
    return started
  }
  before(async () => {
    const sandbox = await startTestSandbox()
    for (const contact of contacts) await sandbox.control.addAccount(contact)
    started = { sandbox, device: await linkedClient(sandbox, phone, options) }
  })
  after(async () => {
    await started?.device.stop()
    await started?.sandbox.close()
  })
  return {
    get sandbox() {
      return current().sandbox
    },
    get device() {
      return current().device
    },
  }
}
