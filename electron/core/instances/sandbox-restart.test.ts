import assert from 'node:assert/strict'
import { existsSync, rmSync } from 'node:fs'
import { createServer } from 'node:net'
import { join } from 'node:path'
import { Writable } from 'node:stream'
import { after, test } from 'node:test'
import { fileURLToPath } from 'node:url'
import type { Core, CoreDeps } from '../index'
import { createLogger } from '../logger'
import { call, decodeQr, ok, startCore, tempDataDir, waitForStatus } from '../testing/instance-harness'
import { eventually, linkedInstance, recordEvents, sha256, TOKEN } from '../testing/messaging-harness'
import { kill, type Served, serveProcess, waitForState } from '../testing/served-process'

const ME = '15550700001'
const ALICE = '15550700002'
const BOB = '15550700003'
const PDF = Buffer.concat([Buffer.from('%PDF-1.4\n'), Buffer.alloc(2000, 0x20), Buffer.from('\n%%EOF\n')])

const dataDir = tempDataDir()
let core: Core | undefined

after(async () => {
  await core?.close()
  rmSync(dataDir, { recursive: true, force: true })
})

function start(input: { sandboxReset?: boolean } = {}, deps: CoreDeps = {}): Promise<Core> {
  return startCore({ dataDir, sandbox: true, limits: { sendIntervalMs: 0, sendJitterMs: 0 }, ...input }, deps)
}

async function sendText(instanceId: string, number: string, message: string): Promise<string> {
  const { status, body } = await call(core!.apiBase, 'send_message', {
    instance_id: instanceId,
    number,
    type: 'text',
    message,
  })
  assert.equal(status, 200, JSON.stringify(body))
  return body.message.key.id
}

async function inInbox(phone: string, id: string): Promise<void> {
  await eventually(
    () => core!.sandbox!.control.inbox(phone).filter((entry) => entry.id === id),
    (found) => found.length === 1,
    `message ${id} in ${phone}'s inbox`,
  )
}

async function received(events: ReturnType<typeof recordEvents>, id: string): Promise<Record<string, any>> {
  const event = await events.waitFor(
    (e) => e.event === 'message.received' && e.data.id === id,
    `received ${id}`,
  )
  return event.data
}

test('a restart on the same data dir restores the linked instance, its contacts, groups, media and inboxes', async () => {
  core = await start()
  let events = recordEvents(core)
  const control = () => core!.sandbox!.control
  await control().addAccount({ phone: ALICE, name: 'Alice', autoReply: 'echo' })
  await control().addAccount({ phone: BOB, name: 'Bob' })
  const instanceId = await linkedInstance(core, ME)
  const accountsBefore = control().accounts()
  const { groupId } = await control().createGroup({ subject: 'Crew', participants: [ALICE, ME, BOB] })

  await inInbox(ALICE, await sendText(instanceId, ALICE, 'before the restart'))
  await received(events, (await control().send(ALICE, { to: ME, text: 'hello before' })).id)
  await inInbox(BOB, await sendText(instanceId, groupId, 'group before'))
  await received(events, (await control().send(BOB, { to: groupId, text: 'group reply before' })).id)
  const pdf = await control().send(BOB, {
    to: ME,
    media: { data: PDF, mimetype: 'application/pdf', filename: 'a.pdf' },
  })
  const downloadPath = new URL(String((await received(events, pdf.id)).media.download_url)).pathname
  const rootKey = control().endpoint.rootPublicKey.toString('hex')
  const inboxBefore = control().inbox(ALICE)

  await core.close()
  assert.ok(existsSync(join(dataDir, 'sandbox')), 'the sandbox keeps its state in the data dir')
  core = await start()
  events = recordEvents(core)

  assert.equal(control().endpoint.rootPublicKey.toString('hex'), rootKey, 'the same root key')
  assert.deepEqual(control().accounts(), accountsBefore, 'accounts, LIDs and linked devices are back')
  assert.deepEqual(control().inbox(ALICE), inboxBefore, 'inboxes are back')
  const restored = await waitForStatus(
    core,
    instanceId,
    (s) => s.state === 'connected' || s.state === 'logged_out',
    'restore',
  )
  assert.equal(restored.state, 'connected')

  // Both ways, 1:1 and in the group, over the sessions and sender keys kept from before.
  const after1 = await sendText(instanceId, ALICE, 'after the restart')
  await inInbox(ALICE, after1)
  const echo = await events.waitFor(
    (e) => e.event === 'message.received' && e.data.text === 'echo: after the restart',
    'the auto-reply',
  )
  assert.equal(echo.data.sender_phone, ALICE)
  await received(events, (await control().send(ALICE, { to: ME, text: 'hello after' })).id)
  await inInbox(BOB, await sendText(instanceId, groupId, 'group after'))
  const groupReply = await received(
    events,
    (await control().send(BOB, { to: groupId, text: 'group reply after' })).id,
  )
  assert.equal(groupReply.chat, groupId)
  assert.equal(groupReply.text, 'group reply after')

  // Media uploaded before the restart is still served, on the same media host.
  const download = await fetch(`${core.url}${downloadPath}`, {
    headers: { authorization: `Bearer ${TOKEN}` },
  })
  assert.equal(download.status, 200)
  assert.equal(sha256(Buffer.from(await download.arrayBuffer())), sha256(PDF))
})

test('--sandbox-reset starts a fresh network: the device is unknown and the instance is logged out', async () => {
  const before = core!.sandbox!.control.endpoint.rootPublicKey.toString('hex')
  const [instance] = core!.registry.all()
  assert.ok(instance)
  await core!.close()
  core = await start({ sandboxReset: true })
  const status = await waitForStatus(core, instance.id, (s) => s.state === 'logged_out', 'logged out')
  assert.equal(status.state, 'logged_out')
  assert.deepEqual(core.sandbox!.control.accounts(), [], 'no accounts')
  assert.notEqual(core.sandbox!.control.endpoint.rootPublicKey.toString('hex'), before, 'a new root key')
  // The fresh network links anew, numbering devices from the start.
  await linkedInstance(core, ME)
  assert.deepEqual(core.sandbox!.control.accounts().find((a) => a.phone === ME)?.linkedDevices, [1])
})

test('a kept sandbox whose chat port is taken listens on another one: the instance connects to it and sends', async () => {
  const linked = core!.registry.all().find((i) => core!.instances.status(i.id).state === 'connected')
  assert.ok(linked, 'the instance linked after the reset')
  const instanceId = linked.id
  await core!.sandbox!.control.addAccount({ phone: ALICE, name: 'Alice' })
  const keptPort = Number(new URL(core!.sandbox!.endpoint.wsUrl).port)
  await core!.close()
  const squatter = createServer()
  await new Promise<void>((resolve) => squatter.listen(keptPort, '127.0.0.1', resolve))
  const warnings: Array<{ msg: string; port?: number }> = []
  const logs = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const line of chunk.toString('utf8').split('\n')) if (line) warnings.push(JSON.parse(line))
      done()
    },
  })
  try {
    core = await start({}, { logger: createLogger('warn', logs) })
    const chatPort = Number(new URL(core.sandbox!.endpoint.wsUrl).port)
    assert.notEqual(chatPort, keptPort, 'another port')
    assert.ok(
      warnings.some((line) => /previous port is taken/.test(line.msg) && line.port === keptPort),
      `the fallback is logged: ${JSON.stringify(warnings)}`,
    )
    await waitForStatus(core, instanceId, (s) => s.state === 'connected', 'connected on the new port')
    await inInbox(ALICE, await sendText(instanceId, ALICE, 'over the new port'))
  } finally {
    squatter.close()
  }
})

const serveEntry = fileURLToPath(new URL('../../headless/serve.ts', import.meta.url))

/** `npm run serve -- --sandbox` in its own process group; answers its API base once it prints it. */
function serve(dir: string): Promise<Served> {
  const args = [
    '--import',
    'tsx',
    serveEntry,
    '--port',
    '0',
    '--data-dir',
    dir,
    '--sandbox',
    '--log-level',
    'warn',
  ]
  return serveProcess(process.execPath, [...args, '--send-interval-ms', '0'])
}

async function contactInbox(api: string, phone: string): Promise<Array<{ id: string; text: string }>> {
  const response = await fetch(`${api}/sandbox/accounts/${phone}/messages`, {
    headers: { authorization: `Bearer ${TOKEN}` },
  })
  return ((await response.json()) as { messages: Array<{ id: string; text: string }> }).messages
}

test('`npm run serve -- --sandbox` killed with SIGKILL and started again: the instance is connected and reaches its contact', async () => {
  const dir = tempDataDir()
  let server = await serve(dir)
  try {
    await ok(server.api, 'sandbox/accounts', { phone: ALICE, name: 'Alice' })
    const { instance_id: id } = await ok(server.api, 'create_instance')
    const { base64 } = await ok(server.api, 'generate_qrcode', { instance_id: id })
    await ok(server.api, 'sandbox/link', { qr: decodeQr(base64), phone: ME })
    await waitForState(server.api, id, 'connected')
    const before = await ok(server.api, 'send_message', {
      instance_id: id,
      number: ALICE,
      type: 'text',
      message: 'one',
    })
    await kill(server.child)

    server = await serve(dir)
    await waitForState(server.api, id, 'connected')
    const sent = await ok(server.api, 'send_message', {
      instance_id: id,
      number: ALICE,
      type: 'text',
      message: 'two',
    })
    const deadline = Date.now() + 20_000
    let inbox = await contactInbox(server.api, ALICE)
    while (!inbox.some((entry) => entry.id === sent.message.key.id) && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 100))
      inbox = await contactInbox(server.api, ALICE)
    }
    assert.deepEqual(
      inbox.map((entry) => [entry.id, entry.text]),
      [
        [before.message.key.id, 'one'],
        [sent.message.key.id, 'two'],
      ],
    )
  } finally {
    await kill(server.child)
    rmSync(dir, { recursive: true, force: true })
  }
})
