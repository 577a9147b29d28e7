import assert from 'node:assert/strict'
import type { AddressInfo } from 'node:net'
import { after, before, test } from 'node:test'
import { createHttpApp } from '../../api/http-app'
import { silentLogger } from '../../logger'
import { registerSandboxRoutes, type Sandbox } from '../index'
import { SandboxClient } from '../testing/sandbox-client'
import { startTestSandbox } from '../testing/sandbox-fixture'

const ME = '15550001111'
const ALICE = '15551230001'

let sandbox: Sandbox
let base: string
let close: () => Promise<void>
let device: SandboxClient | undefined

before(async () => {
  sandbox = await startTestSandbox()
  const app = createHttpApp({ logger: silentLogger() })
  await app.register(async (scoped) => registerSandboxRoutes(scoped, sandbox.control), { prefix: '/sandbox' })
  await app.listen({ host: '127.0.0.1', port: 0 })
  base = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}/sandbox`
  close = () => app.close()
})

after(async () => {
  await device?.stop()
  await close()
  await sandbox.close()
})

async function call(
  method: 'GET' | 'POST',
  path: string,
  body?: unknown,
): Promise<{ status: number; body: any }> {
  const response = await fetch(`${base}${path}`, {
    method,
    headers: body === undefined ? {} : { 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  })
  return { status: response.status, body: await response.json() }
}

test('GET /endpoint describes the websocket URL, the root key in hex and the media CA', async () => {
  const { status, body } = await call('GET', '/endpoint')
  assert.equal(status, 200)
  assert.equal(body.status, 'success')
  assert.equal(body.websocket, sandbox.endpoint.wsUrl)
  assert.equal(body.root_key, sandbox.endpoint.rootPublicKey.toString('hex'))
  assert.match(body.media_ca, /BEGIN CERTIFICATE/)
})

test('POST /link links a real Baileys device by the text its QR encodes', async () => {
  device = new SandboxClient({ endpoint: sandbox.endpoint }).start()
  const qr = await device.waitForQr()
  const { status, body } = await call('POST', '/link', { qr, phone: ME, name: 'Desk' })
  assert.equal(status, 200)
  assert.equal(body.status, 'success')
  assert.match(body.jid, /^15550001111:\d+@s\.whatsapp\.net$/)
  await device.waitForOpen()
})

test('POST /link with an unknown QR answers 404 qr_not_found', async () => {
  const { status, body } = await call('POST', '/link', { qr: '2@unknown,a,b,c', phone: ME })
  assert.equal(status, 404)
  assert.deepEqual(Object.keys(body).sort(), ['code', 'message', 'status'])
  assert.equal(body.code, 'qr_not_found')
})

test('POST /accounts registers a contact with an echo auto-reply; bad numbers get 400', async () => {
  const added = await call('POST', '/accounts', { phone: ALICE, name: 'Alice', auto_reply: 'echo' })
  assert.equal(added.status, 200)
  assert.equal(added.body.jid, `${ALICE}@s.whatsapp.net`)
  assert.match(added.body.lid, /^\d{15}@lid$/)
  const missing = await call('POST', '/accounts', {})
  assert.equal(missing.status, 400)
  assert.equal(missing.body.code, 'missing_parameter')
  const malformed = await call('POST', '/accounts', { phone: '+1 555' })
  assert.equal(malformed.status, 400)
  assert.equal(malformed.body.code, 'invalid_parameter')
  const badReply = await call('POST', '/accounts', { phone: ALICE, auto_reply: 'shout' })
  assert.equal(badReply.body.code, 'invalid_parameter')
})

test('a contact sends through POST /accounts/{phone}/messages and reads its inbox with GET', async () => {
  const sent = await call('POST', `/accounts/${ALICE}/messages`, { to: ME, text: 'over http' })
  assert.equal(sent.status, 200)
  assert.ok(device)
  const received = await device.waitForMessage(sent.body.id)
  assert.equal(received.message?.conversation, 'over http')
  assert.ok(device.sock)
  const reply = await device.sock.sendMessage(`${ALICE}@s.whatsapp.net`, { text: 'hello back' })
  const id = reply?.key.id
  await sandbox.control.events.waitFor('message', (event) => event.entry.id === id)
  const inbox = await call('GET', `/accounts/${ALICE}/messages`)
  assert.equal(inbox.status, 200)
  const entry = inbox.body.messages.find((m: { id: string }) => m.id === id)
  assert.deepEqual(Object.keys(entry).sort(), [
    'caption',
    'chat',
    'filename',
    'from',
    'id',
    'mimetype',
    'sha256',
    'size',
    'text',
    'timestamp',
    'type',
  ])
  assert.equal(entry.text, 'hello back')
})

test('sending to a number that is not on the network answers 422 recipient_not_found', async () => {
  const { status, body } = await call('POST', `/accounts/${ALICE}/messages`, {
    to: '19990000000',
    text: 'anyone?',
  })
  assert.equal(status, 422)
  assert.equal(body.code, 'recipient_not_found')
  const noText = await call('POST', `/accounts/${ALICE}/messages`, { to: ME })
  assert.equal(noText.body.code, 'missing_parameter')
})

test('an account that does not exist answers 404 account_not_found', async () => {
  const { status, body } = await call('GET', '/accounts/19990000000/messages')
  assert.equal(status, 404)
  assert.equal(body.code, 'account_not_found')
})

test('POST /groups makes a group of numbers and answers its group_id', async () => {
  const { status, body } = await call('POST', '/groups', { subject: 'Ops', participants: [ALICE, ME] })
  assert.equal(status, 200)
  assert.match(body.group_id, /^\d+@g\.us$/)
  const unknown = await call('POST', '/groups', { subject: 'Ops', participants: ['19990000000'] })
  assert.equal(unknown.body.code, 'account_not_found')
})

test('POST drop with a bad mode is refused, and POST unlink logs the device out with 401', async () => {
  const bad = await call('POST', `/accounts/${ME}/drop`, { mode: 'explode' })
  assert.equal(bad.status, 400)
  assert.equal(bad.body.code, 'invalid_parameter')
  assert.ok(device)
  const closes = device.closes.length
  const unlinked = await call('POST', `/accounts/${ME}/unlink`)
  assert.equal(unlinked.status, 200)
  assert.equal((await device.waitForClose(closes + 1)).code, 401)
})
