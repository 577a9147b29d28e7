import assert from 'node:assert/strict'
import { rmSync } from 'node:fs'
import { after, before, test } from 'node:test'
import { DEFAULT_CONNECTION_CONFIG } from '@whiskeysockets/baileys'
import type { Core } from '../index'
import {
  decodeQr,
  ok,
  recordStates,
  startCore,
  tempDataDir,
  waitForStatus,
} from '../testing/instance-harness'

// The sandbox starts out announcing and accepting the version Baileys was released with; a "web release"
// then moves the version its document announces and the minimum it accepts.
const [major, minor, revision] = DEFAULT_CONNECTION_CONFIG.version
const release = (step: number) => `${major}.${minor}.${revision + step}`

let core: Core
let dataDir: string

before(async () => {
  dataDir = tempDataDir()
  core = await startCore({ dataDir, sandbox: true })
})

after(async () => {
  await core.close()
  rmSync(dataDir, { recursive: true, force: true })
})

async function health(): Promise<{ version: string; source: string; checked_at: number | null }> {
  const response = await fetch(`${core.apiBase}/health`)
  return ((await response.json()) as { wa_version: any }).wa_version
}

async function linked(phone: string): Promise<string> {
  const { instance_id: id } = await ok(core.apiBase, 'create_instance')
  const { base64 } = await ok(core.apiBase, 'generate_qrcode', { instance_id: id })
  await ok(core.apiBase, 'sandbox/link', { qr: decodeQr(base64), phone })
  await waitForStatus(core, id, (s) => s.state === 'connected', 'connection')
  return id
}

/** Counts the sandbox logins of one phone's devices from now on. */
function countLogins(phone: string): () => number {
  let logins = 0
  core.sandbox!.control.events.on('login', (event: { phone: string }) => event.phone === phone && logins++)
  return () => logins
}

test('the client version is fetched at start from the network’s version document and shown by health', async () => {
  // The fetch runs in the background of the start (restores wait for it, the API does not).
  let shown = await health()
  while (shown.source === 'bundled' && shown.checked_at === null) shown = await health()
  assert.equal(shown.version, release(0))
  assert.equal(shown.source, 'fetched')
  assert.ok(shown.checked_at && shown.checked_at <= Date.now() / 1000)
})

test('a 405 (version too old) fetches the version again and logs in once more with the new one', async () => {
  const phone = '15550500001'
  const id = await linked(phone)
  const logins = countLogins(phone)
  const states = recordStates(core, id)
  await ok(core.apiBase, 'sandbox/client-version', { current: release(1), minimum: release(1) })
  await ok(core.apiBase, `sandbox/accounts/${phone}/drop`, { mode: 'close' })

  await waitForStatus(
    core,
    id,
    (s) => s.state === 'connected' && logins() === 1,
    'the login with the new version',
  )
  assert.deepEqual(states, ['connected', 'disconnected', 'connecting', 'connected'])
  const { instance } = await ok(core.apiBase, 'instance', { instance_id: id })
  assert.equal(instance.last_error.code, 405, 'the refusal is recorded')
  assert.equal((await health()).version, release(1))
})

test('a 405 with no newer version to be had stops as client_outdated, without retrying, until reconnect', async () => {
  const phone = '15550500002'
  const id = await linked(phone)
  const logins = countLogins(phone)
  // The minimum moves past what the document announces, as when Linkdesk's version source lags behind.
  await ok(core.apiBase, 'sandbox/client-version', { minimum: release(2) })
  await ok(core.apiBase, `sandbox/accounts/${phone}/drop`, { mode: 'close' })

  const stopped = await waitForStatus(
    core,
    id,
    (s) => s.state === 'disconnected' && s.cause === 'client_outdated',
    'the stop',
  )
  assert.equal(stopped.nextRetryAt, null)
  assert.equal(stopped.lastError?.code, 405)
  assert.equal(core.registry.find(id)?.linked, true, 'the link is kept')
  await new Promise((resolve) => setTimeout(resolve, 1500))
  assert.equal(core.instances.status(id).state, 'disconnected')
  assert.equal(logins(), 0, 'refused logins are not logins, and none were tried again')
  // Kept in the record, so a start of the app does not try it either.
  assert.equal(core.registry.find(id)?.stopped?.cause, 'client_outdated')
  assert.equal(core.registry.find(id)?.stopped?.code, 405)

  // Once the document announces an accepted version, reconnect fetches it and connects.
  await ok(core.apiBase, 'sandbox/client-version', { current: release(2) })
  const { data } = await ok(core.apiBase, 'reconnect', { instance_id: id })
  assert.match(data.id, new RegExp(`^${phone}:\\d+@s\\.whatsapp\\.net$`))
  assert.equal(logins(), 1)
  assert.equal((await health()).version, release(2))
  assert.equal(core.registry.find(id)?.stopped, undefined, 'reconnect cleared the kept stop')
})
