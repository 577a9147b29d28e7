import assert from 'node:assert/strict'
import type { AddressInfo } from 'node:net'
import { after, before, test } from 'node:test'
import { Value } from '@sinclair/typebox/value'
import pino from 'pino'
import type { Sandbox } from '../index'
import { SandboxClient } from '../testing/sandbox-client'
import { startTestSandbox } from '../testing/sandbox-fixture'
import { createControlApp } from './control-app'

const ME = '15550001111'
const ALICE = '15551230001'

let sandbox: Sandbox
let base: string
let close: () => Promise<void>
let device: SandboxClient | undefined
const answered = new Set<string>()
const mismatches: string[] = []

before(async () => {
  sandbox = await startTestSandbox()
  const app = createControlApp(sandbox.control, { logger: pino({ level: 'silent' }) })
  // Every success answer of these tests, checked against the answer its route declares.
  app.addHook('onSend', async (request, reply, payload) => {
    const declared = request.routeOptions.config.control
    if (reply.statusCode !== 200 || !declared || typeof payload !== 'string') return payload
    const route = `${request.method} ${request.routeOptions.url ?? ''}`
    answered.add(route)
    const error = Value.Errors(declared.answer, JSON.parse(payload)).First()
    if (error) mismatches.push(`${route}: ${error.path} ${error.message}`)
    return payload
  })
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

/** The size of an inbox once nothing has arrived in it for a while. */
async function settledInboxSize(phone: string): Promise<number> {
  let size = -1
  while (size !== sandbox.control.inbox(phone).length) {
    size = sandbox.control.inbox(phone).length
    await new Promise((resolve) => setTimeout(resolve, 300))
  }
  return size
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
    'contacts',
    'expiration',
    'filename',
    'from',
    'groupInvite',
    'id',
    'linkPreview',
    'location',
    'mentions',
    'mimetype',
    'poll',
    'ptt',
    'quotedId',
    'seconds',
    'sha256',
    'size',
    'targetId',
    'text',
    'timestamp',
    'type',
    'videoNote',
    'viewOnce',
    'waveform',
  ])
  assert.equal(entry.text, 'hello back')
})

test('GET /accounts/{phone}/receipts lists the receipts its linked devices sent, with the connection that sent each', async () => {
  assert.ok(device?.sock)
  const before = Date.now()
  const sent = await call('POST', `/accounts/${ALICE}/messages`, { to: ME, text: 'receipted' })
  await device.waitForMessage(sent.body.id)
  await sandbox.control.events.waitFor('receipt', (event) => event.ids.includes(sent.body.id), 20_000)
  const { status, body } = await call('GET', `/accounts/${ME}/receipts`)
  assert.equal(status, 200)
  const receipt = body.receipts.find((r: { ids: string[] }) => r.ids.includes(sent.body.id))
  assert.ok(receipt, 'the device’s receipt of the message is listed')
  assert.equal(receipt.device, device.sock.user?.id ? Number(/:(\d+)@/.exec(device.sock.user.id)?.[1]) : NaN)
  assert.ok(
    receipt.at >= before && receipt.logged_in_at <= receipt.at,
    'when, and since when its connection was up',
  )
  assert.equal((await call('GET', `/accounts/${ALICE}/receipts`)).body.receipts.length, 0, 'per account')
  const unknown = await call('GET', '/accounts/15559999999/receipts')
  assert.equal(unknown.status, 404)
  assert.equal(unknown.body.code, 'account_not_found')
})

test('POST /accounts/{phone}/read: the contact reads a message and the sender device sees it read; an unknown id reads nothing', async () => {
  assert.ok(device?.sock)
  const reader = '15551230002'
  await call('POST', '/accounts', { phone: reader, name: 'Slow reader' })
  await call('POST', `/accounts/${reader}/behaviour`, { reads: 'never' })
  const sent = await device.sock.sendMessage(`${reader}@s.whatsapp.net`, { text: 'read me' })
  const id = sent?.key.id ?? ''
  await device.waitForStatus(id, 3)
  const unknown = await call('POST', `/accounts/${reader}/read`, { ids: [id, 'NOPE'] })
  assert.equal(unknown.status, 404)
  assert.equal(unknown.body.code, 'message_not_found')
  const bad = await call('POST', `/accounts/${reader}/read`, { ids: 'x' })
  assert.equal(bad.body.code, 'invalid_parameter')
  assert.ok(!sandbox.control.reads(reader).includes(id), 'nothing was read')
  const read = await call('POST', `/accounts/${reader}/read`, { ids: [id] })
  assert.deepEqual(read.body, { status: 'success', read: 1 })
  await device.waitForStatus(id, 4)
})

test('a contact sends a voice note, view-once image, location, contact cards and a quoting reply over HTTP', async () => {
  assert.ok(device)
  const post = (body: Record<string, unknown>) =>
    call('POST', `/accounts/${ALICE}/messages`, { to: ME, ...body })
  const voice = await post({
    media_base64: Buffer.from('OggS voice').toString('base64'),
    media_as: 'voice_note',
    seconds: 5,
  })
  assert.equal(voice.status, 200)
  const audio = (await device.waitForMessage(voice.body.id)).message?.audioMessage
  assert.equal(audio?.ptt, true)
  assert.equal(audio?.seconds, 5)
  assert.equal(audio?.mimetype, 'audio/ogg; codecs=opus')
  const once = await post({
    media_base64: Buffer.from('not really a png').toString('base64'),
    mimetype: 'image/png',
    view_once: true,
  })
  const image = (await device.waitForMessage(once.body.id)).message?.viewOnceMessageV2?.message?.imageMessage
  assert.equal(image?.viewOnce, true)
  const place = await post({ location: { latitude: 48.8584, longitude: 2.2945, name: 'Tower' } })
  const location = (await device.waitForMessage(place.body.id)).message?.locationMessage
  assert.equal(location?.degreesLatitude, 48.8584)
  assert.equal(location?.name, 'Tower')
  const cards = await post({
    contacts: [
      { name: 'Me', phone: ME },
      { name: 'Alice', phone: ALICE },
    ],
  })
  const array = (await device.waitForMessage(cards.body.id)).message?.contactsArrayMessage
  assert.deepEqual(
    array?.contacts?.map((card) => card.displayName),
    ['Me', 'Alice'],
  )
  const reply = await post({ text: 'quoting', reply_to: place.body.id, mentions: ME })
  const context = (await device.waitForMessage(reply.body.id)).message?.extendedTextMessage?.contextInfo
  assert.equal(context?.stanzaId, place.body.id)
  assert.deepEqual(context?.mentionedJid, [`${ME}@s.whatsapp.net`])
})

test('bad new fields over HTTP answer with the field named; unknown reply_to is 422 quoted_not_found', async () => {
  const post = (body: Record<string, unknown>) =>
    call('POST', `/accounts/${ALICE}/messages`, { to: ME, ...body })
  const cases: Array<[Record<string, unknown>, number, string, RegExp]> = [
    [{ location: { latitude: '1', longitude: 2 } }, 400, 'invalid_parameter', /location\.latitude/],
    [{ location: { longitude: 2 } }, 400, 'missing_parameter', /location\.latitude/],
    [{ location: [1, 2] }, 400, 'invalid_parameter', /location/],
    [{ contacts: 'Bob' }, 400, 'invalid_parameter', /contacts/],
    [{ contacts: [{ name: 'Bob' }] }, 400, 'missing_parameter', /phone/],
    [{ media_base64: 'AAAA', media_as: 'gif' }, 400, 'invalid_parameter', /media_as/],
    [
      { media_base64: 'AAAA', mimetype: 'image/png', view_once: 'yes' },
      400,
      'invalid_parameter',
      /view_once/,
    ],
    [{ media_base64: 'AAAA', seconds: 'long' }, 400, 'invalid_parameter', /seconds/],
    [{ text: 'x', link_preview: { url: 'https://a.example' } }, 400, 'missing_parameter', /title/],
    [{ text: 'x', mentions: 42 }, 400, 'invalid_parameter', /mentions/],
    [{ text: 'x', reply_to: 'UNKNOWN' }, 422, 'quoted_not_found', /reply_to/],
  ]
  // The earlier tests' messages may still be on their way to ME's phone: count once they have all landed.
  const before = await settledInboxSize(ME)
  for (const [body, status, code, message] of cases) {
    const answer = await post(body)
    assert.equal(answer.status, status, JSON.stringify(body))
    assert.equal(answer.body.code, code, JSON.stringify(body))
    assert.match(answer.body.message, message)
  }
  assert.equal(sandbox.control.inbox(ME).length, before)
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

test('POST replace closes the account\'s connected device with the 440 "replaced" stream error; an unknown number is refused', async () => {
  assert.ok(device)
  const unknown = await call('POST', '/accounts/19990000000/replace')
  assert.equal(unknown.status, 404)
  assert.equal(unknown.body.code, 'account_not_found')
  await device.waitForOpen(1)
  const closes = device.closes.length
  const opens = device.opens
  const replaced = await call('POST', `/accounts/${ME}/replace`)
  assert.deepEqual(replaced, { status: 200, body: { status: 'success', devices: 1 } })
  const close = await device.waitForClose(closes + 1)
  assert.equal(close.code, 440)
  assert.match(close.message, /conflict/)
  // The device keeps its link: it logs in again (the app would wait for its operator instead).
  await device.waitForOpen(opens + 1)
})

test('POST fail_login fails the next login with the chosen code as Baileys sees it; bad input changes nothing', async () => {
  assert.ok(device)
  await device.waitForOpen(device.opens)
  const unknown = await call('POST', '/accounts/19990000000/fail_login', { code: 405 })
  assert.equal(unknown.status, 404)
  assert.equal(unknown.body.code, 'account_not_found')
  for (const code of [200, 428, 'x', null]) {
    const bad = await call('POST', `/accounts/${ME}/fail_login`, { code })
    assert.equal(bad.status, 400, `code ${String(code)}`)
    // A blank code is a missing one.
    assert.equal(bad.body.code, code === null ? 'missing_parameter' : 'invalid_parameter')
    assert.match(bad.body.message, /code/)
  }
  // Nothing was recorded: a cut device logs straight back in.
  let closes = device.closes.length
  let opens = device.opens
  await call('POST', `/accounts/${ME}/drop`, { mode: 'close' })
  assert.equal((await device.waitForClose(closes + 1)).code, 428)
  await device.waitForOpen(opens + 1)
  assert.equal(device.closes.length, closes + 1)

  const failed = await call('POST', `/accounts/${ME}/fail_login`, { code: 405 })
  assert.deepEqual(failed, { status: 200, body: { status: 'success' } })
  closes = device.closes.length
  opens = device.opens
  await call('POST', `/accounts/${ME}/drop`, { mode: 'close' })
  assert.equal((await device.waitForClose(closes + 1)).code, 428)
  assert.equal((await device.waitForClose(closes + 2)).code, 405, 'the next login fails with the chosen code')
  await device.waitForOpen(opens + 1)
  assert.equal(device.closes.length, closes + 2, 'the login after it succeeds')
})

test('POST drop with down_for_ms keeps the device out for that time, then it connects by itself', async () => {
  assert.ok(device)
  await device.waitForOpen(device.opens)
  const unknown = await call('POST', '/accounts/19990000000/drop', { mode: 'close', down_for_ms: 1000 })
  assert.equal(unknown.status, 404)
  assert.equal(unknown.body.code, 'account_not_found')
  const before = device.closes.length
  for (const downForMs of [0, -5, 1.5, 'soon', 600_001]) {
    const bad = await call('POST', `/accounts/${ME}/drop`, { mode: 'close', down_for_ms: downForMs })
    assert.equal(bad.status, 400, `down_for_ms ${String(downForMs)}`)
    assert.equal(bad.body.code, 'invalid_parameter')
    assert.match(bad.body.message, /down_for_ms/)
  }
  await new Promise((resolve) => setTimeout(resolve, 300))
  assert.equal(device.closes.length, before, 'a refused cut leaves the device connected')

  const opens = device.opens
  const started = Date.now()
  const dropped = await call('POST', `/accounts/${ME}/drop`, { mode: 'close', down_for_ms: 1500 })
  assert.deepEqual(dropped, { status: 200, body: { status: 'success' } })
  assert.equal((await device.waitForClose(before + 1)).code, 428)
  await device.waitForOpen(opens + 1)
  assert.ok(Date.now() - started >= 1500, 'the device stayed out for the whole outage')
  assert.ok(device.closes.length > before + 1, 'its logins during the outage were cut')
  assert.ok(device.closes.slice(before).every((close) => close.code === 428))
})

test('POST /drop cuts every connected device of every account at once; both log in again; a bad mode cuts none', async () => {
  assert.ok(device)
  await device.waitForOpen(device.opens)
  const other = new SandboxClient({ endpoint: sandbox.endpoint }).start()
  try {
    await call('POST', '/link', { qr: await other.waitForQr(), phone: '15551230088', name: 'Other' })
    await other.waitForOpen()
    const clients = [device, other]
    const closes = clients.map((client) => client.closes.length)
    const opens = clients.map((client) => client.opens)
    for (const mode of [undefined, 'explode']) {
      const bad = await call('POST', '/drop', mode === undefined ? {} : { mode })
      assert.equal(bad.status, 400, JSON.stringify(bad.body))
      assert.equal(bad.body.code, mode === undefined ? 'missing_parameter' : 'invalid_parameter')
    }
    await new Promise((resolve) => setTimeout(resolve, 300))
    assert.deepEqual(
      clients.map((client) => client.closes.length),
      closes,
      'a refused cut leaves every device connected',
    )
    const dropped = await call('POST', '/drop', { mode: 'close' })
    assert.deepEqual(dropped, { status: 200, body: { status: 'success', devices: 2 } })
    for (const [index, client] of clients.entries()) {
      assert.equal((await client.waitForClose(closes[index]! + 1)).code, 428)
      await client.waitForOpen(opens[index]! + 1)
    }
  } finally {
    await other.stop()
  }
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

test('POST /accounts/{phone}/behaviour changes what is given, GET reads it; a bad value is 400 and changes nothing', async () => {
  await call('POST', '/accounts', { phone: '15551230077', name: 'Kim' })
  const read = await call('GET', '/accounts/15551230077/behaviour')
  assert.deepEqual(read.body.behaviour, {
    reads: 'never',
    read_after_ms: 0,
    types_before_reply: false,
    online: 'never',
  })
  const changed = await call('POST', '/accounts/15551230077/behaviour', {
    reads: 'after',
    read_after_ms: 1500,
    online: 'always',
  })
  assert.equal(changed.status, 200, JSON.stringify(changed.body))
  assert.deepEqual(changed.body.behaviour, {
    reads: 'after',
    read_after_ms: 1500,
    types_before_reply: false,
    online: 'always',
  })
  assert.equal(sandbox.control.presence('15551230077').online, true, 'online "always" puts the phone online')
  for (const [body, field] of [
    [{ reads: 'sometimes' }, 'reads'],
    [{ read_after_ms: 600_001 }, 'read_after_ms'],
    [{ read_after_ms: '5' }, 'read_after_ms'],
    [{ types_before_reply: 'yes' }, 'types_before_reply'],
    [{ online: 'maybe', reads: 'instantly' }, 'online'],
  ] as const) {
    const refused = await call('POST', '/accounts/15551230077/behaviour', body)
    assert.equal(refused.status, 400, JSON.stringify([body, refused.body]))
    assert.equal(refused.body.code, 'invalid_parameter')
    assert.match(refused.body.message, new RegExp(field))
  }
  assert.deepEqual(
    (await call('GET', '/accounts/15551230077/behaviour')).body.behaviour,
    changed.body.behaviour,
  )
  assert.equal((await call('POST', '/accounts/15559999999/behaviour', { reads: 'never' })).status, 404)
})

test('POST /accounts/{phone}/app-state clears, then deletes, a chat as the phone; a flag that is not a boolean is 400 and nothing is kept', async () => {
  const chat = `${ME}@s.whatsapp.net`
  const before = (await call('GET', `/accounts/${ALICE}/app-state`)).body.versions
  const bad = await call('POST', `/accounts/${ALICE}/app-state`, { chat: ME, clear: 'yes' })
  assert.equal(bad.status, 400, JSON.stringify(bad.body))
  assert.equal(bad.body.code, 'invalid_parameter')
  assert.deepEqual((await call('GET', `/accounts/${ALICE}/app-state`)).body.versions, before)

  assert.equal((await call('POST', `/accounts/${ALICE}/app-state`, { chat: ME, pinned: true })).status, 200)
  assert.equal((await call('POST', `/accounts/${ALICE}/app-state`, { chat: ME, clear: true })).status, 200)
  const cleared = (await call('GET', `/accounts/${ALICE}/app-state`)).body.chats[chat]
  assert.equal(cleared.pinned, true, 'a clear keeps the chat’s settings')
  assert.equal(typeof cleared.clearedAt, 'number')
  assert.equal((await call('POST', `/accounts/${ALICE}/app-state`, { chat: ME, delete: true })).status, 200)
  const deleted = (await call('GET', `/accounts/${ALICE}/app-state`)).body.chats[chat]
  assert.deepEqual(Object.keys(deleted), ['deletedAt'])
})

test('POST /accounts takes business; POST /accounts/{phone}/labels edits labels on a Business phone and answers not_business on a personal one', async () => {
  const shop = '15550001212'
  const added = await call('POST', '/accounts', { phone: shop, name: 'Shop', business: true })
  assert.equal(added.status, 200, JSON.stringify(added.body))
  const listed = await call('GET', '/accounts')
  assert.equal(listed.body.accounts.find((a: { phone: string }) => a.phone === shop)?.business, true)
  assert.equal((await call('POST', '/accounts', { phone: shop, business: 'yes' })).status, 400)

  const created = await call('POST', `/accounts/${shop}/labels`, { label: '5', name: 'New order', color: 2 })
  assert.equal(created.status, 200, JSON.stringify(created.body))
  const onChat = await call('POST', `/accounts/${shop}/labels`, { label: '5', chat: ALICE, labeled: true })
  assert.equal(onChat.status, 200, JSON.stringify(onChat.body))
  const state = await call('GET', `/accounts/${shop}/app-state`)
  assert.deepEqual(state.body.labels['5'], { name: 'New order', color: 2, deleted: false })
  assert.deepEqual(state.body.labeledChats['5'], [`${ALICE}@s.whatsapp.net`])

  const noChange = await call('POST', `/accounts/${shop}/labels`, { label: '5' })
  assert.equal(noChange.status, 400)
  assert.equal(noChange.body.code, 'missing_parameter')
  const colour = await call('POST', `/accounts/${shop}/labels`, { label: '6', name: 'Red', color: 30 })
  assert.equal(colour.body.code, 'invalid_parameter')
  const personal = await call('POST', `/accounts/${ALICE}/labels`, { label: '1', name: 'Nope' })
  assert.equal(personal.status, 422, JSON.stringify(personal.body))
  assert.equal(personal.body.code, 'not_business')
  const after = await call('GET', `/accounts/${shop}/app-state`)
  assert.deepEqual(after.body.versions, state.body.versions, 'a refused change is not kept')
  assert.equal(after.body.labels['6'], undefined)
})

test('every success answer of these tests is the answer its route declares', () => {
  assert.deepEqual(mismatches, [])
  assert.ok(answered.size >= 15, `${answered.size} routes answered`)
})
