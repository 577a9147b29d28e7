import assert from 'node:assert/strict'
import { cpSync } from 'node:fs'
import { test } from 'node:test'
import { fileURLToPath } from 'node:url'
import { eventually } from '../testing/messaging-harness'
import type { Core } from '../index'
import { call, ok, outsideSandboxForFile, waitForStatus } from '../testing/instance-harness'
import { kill, type Served, serveProcess, waitForState } from '../testing/served-process'

// One sandbox outlives the app: the app restarts against it with `--sandbox-url`, as a user's phone stays.
const outside = outsideSandboxForFile()

test('after a restart on the same data folder, linked instances reconnect with no scan; one unlinked meanwhile is logged out', async () => {
  const dir = outside.dataDir()
  let core: Core = await outside.startCore({ dataDir: dir })
  const a = await outside.link(core.apiBase, '15550300001')
  const b = await outside.link(core.apiBase, '15550300002')
  await waitForStatus(core, a, (s) => s.state === 'connected', 'connection of a')
  await waitForStatus(core, b, (s) => s.state === 'connected', 'connection of b')
  const before = (await ok(core.apiBase, 'reconnect', { instance_id: a })).data
  await core.close()

  core = await outside.startCore({ dataDir: dir })
  await waitForStatus(core, a, (s) => s.state === 'connected', 'restored connection of a')
  await waitForStatus(core, b, (s) => s.state === 'connected', 'restored connection of b')
  assert.deepEqual((await ok(core.apiBase, 'reconnect', { instance_id: a })).data, before)
  await core.close()

  await outside.sandbox.control.unlink('15550300002')
  core = await outside.startCore({ dataDir: dir })
  try {
    await waitForStatus(core, a, (s) => s.state === 'connected', 'connection of a')
    const out = await waitForStatus(core, b, (s) => s.state === 'logged_out', 'logout of b')
    assert.equal(out.cause, 'credentials_rejected')
    // Recorded durably before the logout is announced.
    assert.equal(core.registry.find(b)?.linked, false)
  } finally {
    await core.close()
  }
})

test('a send right after a restart or a scan waits for the connection instead of answering 409; a QR wait answers 409 at once', async () => {
  const dir = outside.dataDir()
  const phone = '15550300004'
  const contact = '15550300005'
  await outside.sandbox.control.addAccount({ phone: contact, name: 'Contact' })
  let core: Core = await outside.startCore({ dataDir: dir })
  const send = (id: string, message: string) =>
    call(core.apiBase, 'send_message', { instance_id: id, number: contact, type: 'text', message })
  const inboxTexts = () => outside.sandbox.control.inbox(contact).map((m) => m.text)
  try {
    const id = await outside.link(core.apiBase, phone)
    // The phone scanned: the instance is linked and on its way (pairing, then the 515 restart).
    await waitForStatus(core, id, (s) => s.linked, 'the scan')
    const afterScan = await send(id, 'right after the scan')
    assert.equal(afterScan.status, 200, JSON.stringify(afterScan.body))
    await core.close()

    core = await outside.startCore({ dataDir: dir })
    assert.notEqual(core.instances.status(id).state, 'connected')
    const afterRestart = await send(id, 'right after the restart')
    assert.equal(afterRestart.status, 200, JSON.stringify(afterRestart.body))
    await eventually(inboxTexts, (texts) => texts.length === 2, "the contact's inbox")
    assert.deepEqual(inboxTexts(), ['right after the scan', 'right after the restart'])

    const waiting = (await ok(core.apiBase, 'create_instance')).instance_id
    await ok(core.apiBase, 'generate_qrcode', { instance_id: waiting })
    const started = Date.now()
    const refused = await send(waiting, 'never sent')
    assert.equal(refused.status, 409)
    assert.equal(refused.body.code, 'not_connected')
    assert.ok(Date.now() - started < 1000, 'a QR wait is not waited for')
  } finally {
    await core.close()
  }
})

test('a second copy logging in with the same device replaces the first (440), which stops without retrying until reconnect', async () => {
  const dir = outside.dataDir()
  const phone = '15550300003'
  // A copy of the data folder is a copy of the embedded store: this is about LMDB on every pass.
  let first: Core = await outside.startCore({ dataDir: dir, store: 'lmdb' })
  const id = await outside.link(first.apiBase, phone)
  await waitForStatus(first, id, (s) => s.state === 'connected', 'connection')
  await first.close()
  const copy = outside.dataDir()
  cpSync(dir, copy, { recursive: true })

  let logins = 0
  const onLogin = (event: { phone: string }) => event.phone === phone && (logins += 1)
  outside.sandbox.control.events.on('login', onLogin)
  first = await outside.startCore({ dataDir: dir, store: 'lmdb' })
  let second: Core | undefined
  try {
    await waitForStatus(first, id, (s) => s.state === 'connected', 'restored connection')
    second = await outside.startCore({ dataDir: copy, store: 'lmdb' })
    await waitForStatus(second, id, (s) => s.state === 'connected', "the copy's connection")
    const replaced = await waitForStatus(first, id, (s) => s.state === 'disconnected', 'the replaced state')
    assert.equal(replaced.cause, 'connection_replaced')
    assert.equal(replaced.lastError?.code, 440)
    assert.equal(replaced.nextRetryAt, null)
    assert.equal(first.registry.find(id)?.linked, true, 'the link is kept')

    // Well past the longest backoff (1 s here): nobody reconnected, the copy keeps the session.
    await new Promise((resolve) => setTimeout(resolve, 2500))
    assert.equal(logins, 2)
    assert.equal(first.instances.status(id).state, 'disconnected')
    assert.equal(second.instances.status(id).state, 'connected')

    // Reconnecting takes the session back; now the copy is the one replaced, and it stays so.
    const { data } = await ok(first.apiBase, 'reconnect', { instance_id: id })
    assert.match(data.id, new RegExp(`^${phone}:\\d+@s\\.whatsapp\\.net$`))
    const other = await waitForStatus(second, id, (s) => s.state === 'disconnected', 'the copy replaced')
    assert.equal(other.cause, 'connection_replaced')
    await new Promise((resolve) => setTimeout(resolve, 1500))
    assert.equal(logins, 3)
    assert.equal(first.instances.status(id).state, 'connected')
  } finally {
    outside.sandbox.control.events.off('login', onLogin)
    await second?.close()
    await first.close()
  }
})

test('a 440 "replaced" from the network stops the instance for good: a restart leaves it stopped with its cause until the operator reconnects', async () => {
  const dir = outside.dataDir()
  const phone = '15550300020'
  let logins = 0
  const onLogin = (event: { phone: string }) => event.phone === phone && (logins += 1)
  outside.sandbox.control.events.on('login', onLogin)
  // A single node's answer (a node on a PostgreSQL store is a cluster node, which retries twice first).
  let core: Core = await outside.startCore({ dataDir: dir, store: 'lmdb' })
  try {
    const id = await outside.link(core.apiBase, phone)
    await waitForStatus(core, id, (s) => s.state === 'connected', 'connection')
    const response = await fetch(`${outside.controlUrl}/accounts/${phone}/replace`, { method: 'POST' })
    assert.deepEqual(await response.json(), { status: 'success', devices: 1 })
    const replaced = await waitForStatus(core, id, (s) => s.state === 'disconnected', 'the replaced state')
    assert.equal(replaced.cause, 'connection_replaced')
    assert.equal(replaced.lastError?.code, 440)
    assert.equal(replaced.nextRetryAt, null)
    await core.close()

    // The cause was kept in the record: the start leaves the instance stopped and never logs it in.
    const loginsBefore = logins
    core = await outside.startCore({ dataDir: dir, store: 'lmdb' })
    assert.equal(core.registry.find(id)?.stopped?.cause, 'connection_replaced')
    await new Promise((resolve) => setTimeout(resolve, 1500))
    const { instance } = await ok(core.apiBase, 'instance', { instance_id: id })
    assert.equal(instance.state, 'disconnected')
    assert.equal(instance.cause, 'connection_replaced')
    assert.equal(instance.linked, true)
    assert.equal(instance.last_error.code, 440)
    assert.equal(instance.next_retry_at, null)
    assert.equal(logins, loginsBefore, 'no login of the device')
    const refused = await call(core.apiBase, 'send_message', {
      instance_id: id,
      number: phone,
      type: 'text',
      message: 'not while stopped',
    })
    assert.equal(refused.status, 409)
    assert.equal(refused.body.code, 'not_connected')

    // The operator's reconnect connects it and clears the kept cause; the next restart connects as usual.
    const { data } = await ok(core.apiBase, 'reconnect', { instance_id: id })
    assert.match(data.id, new RegExp(`^${phone}:\\d+@s\\.whatsapp\\.net$`))
    assert.equal(logins, loginsBefore + 1)
    assert.equal(core.registry.find(id)?.stopped, undefined)
    await core.close()
    core = await outside.startCore({ dataDir: dir, store: 'lmdb' })
    assert.equal(core.registry.find(id)?.stopped, undefined)
    await waitForStatus(core, id, (s) => s.state === 'connected', 'restored connection')
    assert.equal(logins, loginsBefore + 2)
  } finally {
    outside.sandbox.control.events.off('login', onLogin)
    await core.close()
  }
})

const repoRoot = fileURLToPath(new URL('../../../', import.meta.url))

/** `npm run serve` in its own process group; answers its API base once it prints it. */
function serve(dir: string): Promise<Served> {
  const args = ['--port', '0', '--data-dir', dir, '--sandbox-url', outside.controlUrl, '--log-level', 'warn']
  return serveProcess('npm', ['run', '--silent', 'serve', '--', ...args], repoRoot)
}

test('a `npm run serve` process killed with SIGKILL and started again reconnects its linked instance with no scan', async () => {
  const dir = outside.dataDir()
  let server = await serve(dir)
  try {
    const id = await outside.link(server.api, '15550300010')
    const linked = await waitForState(server.api, id, 'connected')
    await kill(server.child)
    server = await serve(dir)
    const restored = await waitForState(server.api, id, 'connected')
    assert.equal(restored.account.id, linked.account.id)
    assert.equal((await ok(server.api, 'reconnect', { instance_id: id })).data.id, linked.account.id)
  } finally {
    await kill(server.child)
  }
})
