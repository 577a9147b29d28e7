import assert from 'node:assert/strict'
import { existsSync, rmSync } from 'node:fs'
import { join } from 'node:path'
import { after, before, describe, test } from 'node:test'
import type { Core } from '../index'
import {
  call,
  decodeQr,
  ok,
  recordStates,
  startCore,
  tempDataDir,
  TOKEN,
  waitForStatus,
} from '../testing/instance-harness'

let core: Core
let api: string
let dataDir: string

before(async () => {
  dataDir = tempDataDir()
  core = await startCore({ dataDir, sandbox: true })
  api = core.apiBase
})

after(async () => {
  await core.close()
  rmSync(dataDir, { recursive: true, force: true })
})

/** An instance's events (oldest first) of one name; a destroyed instance's are looked up without its id. */
async function eventsOf(instanceId: string, event: string): Promise<any[]> {
  const byId = event === 'instance.destroyed' ? {} : { instance_id: instanceId }
  const { events } = await ok(api, 'events', { event, limit: 500, ...byId })
  return events.filter((e: any) => e.instance_id === instanceId).reverse()
}

async function createInstance(): Promise<string> {
  return (await ok(api, 'create_instance')).instance_id
}

/** generate_qrcode, decode the PNG, scan it with a sandbox phone, wait until connected. */
async function link(instanceId: string, phone: string, name?: string): Promise<void> {
  const { base64 } = await ok(api, 'generate_qrcode', { instance_id: instanceId })
  await ok(api, 'sandbox/link', { qr: decodeQr(base64), phone, name })
  await waitForStatus(core, instanceId, (s) => s.state === 'connected', 'connection')
}

describe('linking', () => {
  test('generate_qrcode answers a PNG of the exact QR text; a sandbox phone scans it and the instance connects', async () => {
    const id = await createInstance()
    const states = recordStates(core, id)
    const answer = await ok(api, 'generate_qrcode', { instance_id: id })
    assert.match(answer.base64, /^data:image\/png;base64,/)
    const text = decodeQr(answer.base64)
    assert.equal(text, core.instances.status(id).qr?.text)
    assert.match(text, /^https:\/\/wa\.me\/settings\/linked_devices#/)

    const linked = await ok(api, 'sandbox/link', { qr: text, phone: '15550100001', name: 'Front desk' })
    assert.match(linked.jid, /^15550100001:\d+@s\.whatsapp\.net$/)
    await waitForStatus(core, id, (s) => s.state === 'connected', 'connection')
    assert.deepEqual(states, ['idle', 'connecting', 'qr', 'connecting', 'connected'])

    const { instance } = await ok(api, 'instance', { instance_id: id })
    assert.equal(instance.state, 'connected')
    assert.equal(instance.cause, 'logged_in')
    assert.equal(instance.last_error, null, 'the routine 515 restart after a scan is not an error')
    assert.equal(instance.account.id, linked.jid)
    assert.equal(instance.account.number, '15550100001')
    assert.equal(core.registry.find(id)?.linked, true)

    const reconnect = await ok(api, 'reconnect', { instance_id: id })
    assert.equal(reconnect.data.id, linked.jid)
    assert.ok(reconnect.data.name === 'Front desk' || reconnect.data.name === '15550100001')
    assert.equal(reconnect.data.avatar, '')

    const listed = await ok(api, 'instances')
    assert.equal(listed.instances.find((entry: any) => entry.instance_id === id)?.state, 'connected')

    const updates = await eventsOf(id, 'connection.update')
    assert.deepEqual(
      updates.map((e) => [e.data.previous_state, e.data.state, e.data.reason]),
      [
        ['idle', 'connecting', 'starting'],
        ['connecting', 'qr', 'waiting_for_scan'],
        ['qr', 'connecting', 'paired'],
        ['connecting', 'connected', 'logged_in'],
      ],
    )
    const [qrEvent] = await eventsOf(id, 'qr.update')
    assert.equal(qrEvent.data.qr, answer.base64)
    assert.equal(qrEvent.data.qr_text, text)
    assert.equal(qrEvent.data.count, 1)
    assert.ok(qrEvent.data.expires_at > Date.now() / 1000)
  })

  test("the account's name, which arrives after the connection opened, is shown, announced by instance.updated and answered by reconnect", async () => {
    const id = await createInstance()
    await link(id, '15550100003', 'Reception')
    const named = await waitForStatus(core, id, (s) => s.account?.name === 'Reception', 'the name')
    assert.equal(named.state, 'connected')
    const { instance } = await ok(api, 'instance', { instance_id: id })
    assert.equal(instance.account.name, 'Reception')
    const [updated, ...more] = await eventsOf(id, 'instance.updated')
    assert.deepEqual(updated?.data, { changed: ['account'] })
    assert.equal(more.length, 0, 'announced once')
    const reconnect = await ok(api, 'reconnect', { instance_id: id })
    assert.equal(reconnect.data.name, 'Reception')
    assert.equal(reconnect.data.avatar, '')
  })

  test('a new profile picture set on the phone becomes the avatar at once, announced by instance.updated', async () => {
    const id = await createInstance()
    await link(id, '15550100004', 'Front office')
    await waitForStatus(core, id, (s) => s.account?.name === 'Front office', 'the name')
    const before = (await eventsOf(id, 'instance.updated')).length
    const picture = Buffer.from('\xff\xd8\xff\xe0 a small JPEG', 'latin1')
    const { url } = await ok(api, 'sandbox/accounts/15550100004/picture', {
      media_base64: picture.toString('base64'),
    })
    assert.match(url, /^https:\/\//)
    const shown = await waitForStatus(core, id, (s) => s.account?.avatar === url, 'the new avatar')
    assert.equal(shown.account?.name, 'Front office')
    const { instance } = await ok(api, 'instance', { instance_id: id })
    assert.equal(instance.account.avatar, url)
    assert.equal((await eventsOf(id, 'instance.updated')).length, before + 1)
    assert.equal((await ok(api, 'reconnect', { instance_id: id })).data.avatar, url)
  })

  test('each 409: already_linked for a linked instance, not_linked for an unlinked one', async () => {
    const linkedId = await createInstance()
    await link(linkedId, '15550100002')
    const qr = await call(api, 'generate_qrcode', { instance_id: linkedId })
    assert.equal(qr.status, 409)
    assert.equal(qr.body.code, 'already_linked')
    const alias = await call(api, 'get_qrcode', { instance_id: linkedId })
    assert.equal(alias.body.code, 'already_linked')
    const pairing = await call(api, 'pairing_code', { instance_id: linkedId, phone: '15550100002' })
    assert.equal(pairing.body.code, 'already_linked')

    const fresh = await createInstance()
    const reconnect = await call(api, 'reconnect', { instance_id: fresh })
    assert.equal(reconnect.status, 409)
    assert.equal(reconnect.body.code, 'not_linked')
    assert.match(reconnect.body.message, /link it first/)
    assert.equal(core.instances.status(fresh).state, 'idle')
  })

  test('an instance outside a token’s reach and an unknown id both answer 404', async () => {
    const unknown = await call(api, 'generate_qrcode', { instance_id: 'NOPE' })
    assert.equal(unknown.status, 404)
    assert.equal(unknown.body.code, 'instance_not_found')
    const other = (await core.tokens.create('other script', { reach: 'chosen' })).token
    const theirs = (await ok(api, 'create_instance')).instance_id
    for (const name of ['generate_qrcode', 'reconnect', 'reinitialize', 'destroy', 'instance']) {
      const answer = await call(api, name, { instance_id: theirs, access_token: other })
      assert.equal(answer.status, 404, name)
      assert.equal(answer.body.code, 'instance_not_found', name)
    }
    const listed = (await ok(api, 'instances', { access_token: other })).instances
    assert.ok(!listed.map((entry: any) => entry.instance_id).includes(theirs))
    assert.equal((await ok(api, 'instance', { instance_id: theirs })).instance.instance_id, theirs)
  })

  test('the sandbox control API answers only with an access token', async () => {
    const anonymous = await fetch(`${api}/sandbox/accounts`)
    assert.equal(anonymous.status, 401)
    assert.equal((await anonymous.json()).code, 'unauthorized')
    const listed = await fetch(`${api}/sandbox/accounts`, { headers: { authorization: `Bearer ${TOKEN}` } })
    assert.equal(listed.status, 200)
  })

  test('pairing_code answers an 8-character code for a phone number and waits for it like a QR scan', async () => {
    const id = await createInstance()
    const invalid = await call(api, 'pairing_code', { instance_id: id, phone: '12ab' })
    assert.equal(invalid.status, 400)
    assert.equal(invalid.body.code, 'invalid_parameter')
    const { code } = await ok(api, 'pairing_code', { instance_id: id, phone: '+1 555 010 0005' })
    assert.match(code, /^[1-9A-HJ-NP-Z]{4}-[1-9A-HJ-NP-Z]{4}$/)
    const status = core.instances.status(id)
    assert.equal(status.state, 'qr')
    assert.equal(status.linked, false)
  })

  test('a pairing code typed on the simulated phone links the instance, as a scan does', async () => {
    const id = await createInstance()
    const { code } = await ok(api, 'pairing_code', { instance_id: id, phone: '15550100006' })
    const wrong = await call(api, 'sandbox/accounts/15550100006/pairing_code', { code: 'AAAA-AAAA' })
    assert.equal(wrong.status, 400)
    assert.equal(wrong.body.code, 'invalid_parameter')
    assert.equal(core.instances.status(id).state, 'qr')
    const linked = await ok(api, 'sandbox/accounts/15550100006/pairing_code', { code, name: 'By code' })
    assert.match(linked.jid, /^15550100006:\d+@s\.whatsapp\.net$/)
    const connected = await waitForStatus(core, id, (s) => s.state === 'connected', 'connection')
    assert.equal(connected.account?.number, '15550100006')
    assert.equal(connected.account?.id, linked.jid)
  })
})

describe('connection loss', () => {
  test('a closed connection goes disconnected, then connected again by itself', async () => {
    const id = await createInstance()
    await link(id, '15550100010')
    const states = recordStates(core, id)
    await ok(api, 'sandbox/accounts/15550100010/drop', { mode: 'close' })
    const lost = await waitForStatus(core, id, (s) => s.state === 'disconnected', 'disconnection')
    assert.equal(lost.cause, 'connection_closed')
    assert.ok(lost.nextRetryAt)
    await waitForStatus(core, id, (s) => s.state === 'connected', 'reconnection')
    assert.deepEqual(states, ['connected', 'disconnected', 'connecting', 'connected'])
    assert.equal((await ok(api, 'instance', { instance_id: id })).instance.last_error.code, 428)
  })

  test('a silent link is detected within keepalive + a few seconds and recovers by itself', async () => {
    const id = await createInstance()
    await link(id, '15550100011')
    const started = Date.now()
    await ok(api, 'sandbox/accounts/15550100011/drop', { mode: 'silent' })
    const lost = await waitForStatus(core, id, (s) => s.state === 'disconnected', 'disconnection', 15_000)
    assert.equal(lost.cause, 'connection_lost')
    assert.ok(Date.now() - started < 1000 * 2 + 5000 + 2000, 'detected within 2 keepalives + 5 s + slack')
    await waitForStatus(core, id, (s) => s.state === 'connected', 'reconnection')
  })
})

describe('refusals that keep the link', () => {
  test('a 405 (client outdated) at login stops the retries but keeps the link; reconnect tries again', async () => {
    const id = await createInstance()
    await link(id, '15550100012')
    core.sandbox!.control.failNextLogin('15550100012', 405)
    await ok(api, 'sandbox/accounts/15550100012/drop', { mode: 'close' })
    const stopped = await waitForStatus(
      core,
      id,
      (s) => s.state === 'disconnected' && s.cause === 'client_outdated',
      'the 405 stop',
    )
    assert.equal(stopped.nextRetryAt, null)
    assert.equal(stopped.lastError?.code, 405)
    assert.equal(core.registry.find(id)?.linked, true)
    assert.ok(await core.authStore.exists(id))
    const { data } = await ok(api, 'reconnect', { instance_id: id })
    assert.match(data.id, /^15550100012:\d+@s\.whatsapp\.net$/)
  })
})

describe('logout and reset', () => {
  test('the phone unlinking the device: logged_out, credentials wiped, then a new QR', async () => {
    const id = await createInstance()
    await link(id, '15550100020')
    await ok(api, 'sandbox/accounts/15550100020/unlink')
    const out = await waitForStatus(core, id, (s) => s.state === 'logged_out', 'logout')
    assert.equal(out.cause, 'device_removed')
    assert.equal(out.account, null)
    assert.equal(core.registry.find(id)?.linked, false)
    assert.equal(await core.authStore.exists(id), false)
    assert.equal(await core.authStore.countEntries(id), 0)
    const [logoutEvent] = await eventsOf(id, 'instance.logged_out')
    assert.equal(logoutEvent.data.reason, 'device_removed')
    assert.equal((await call(api, 'reconnect', { instance_id: id })).body.code, 'not_linked')
    const { base64 } = await ok(api, 'generate_qrcode', { instance_id: id })
    assert.match(decodeQr(base64), /^https:\/\/wa\.me\/settings\/linked_devices#/)
  })

  test('reinitialize (alias reboot) logs out, wipes the credentials and starts a new QR wait', async () => {
    const id = await createInstance()
    await link(id, '15550100021')
    const phoneLogout = core.sandbox!.control.events.waitFor('disconnect', (e) => e.phone === '15550100021')
    await ok(api, 'reboot', { instance_id: id })
    await phoneLogout
    assert.equal(core.registry.find(id)?.linked, false)
    await waitForStatus(core, id, (s) => s.state === 'qr', 'a new QR')
    const account = core.sandbox!.control.accounts().find((a) => a.phone === '15550100021')
    assert.deepEqual(account?.linkedDevices, [], 'the phone no longer lists the device')
    await link(id, '15550100021')
  })

  test('destroy (alias reset_instance) logs out, deletes its keys and folder, answers a new id; the old id is 404', async () => {
    const id = await createInstance()
    await link(id, '15550100022')
    assert.ok(await core.authStore.exists(id))
    const answer = await ok(api, 'destroy', { instance_id: id })
    assert.match(answer.instance_id, /^[0-9A-F]{24}$/)
    assert.notEqual(answer.instance_id, id)
    assert.equal(await core.authStore.exists(id), false)
    assert.equal(await core.authStore.countEntries(id), 0)
    assert.equal(existsSync(join(dataDir, 'instances', id)), false)
    for (const name of ['instance', 'generate_qrcode', 'reconnect', 'destroy']) {
      assert.equal((await call(api, name, { instance_id: id })).status, 404, name)
    }
    const destroyed = await eventsOf(id, 'instance.destroyed')
    assert.equal(destroyed.length, 1)
    const fresh = await ok(api, 'instance', { instance_id: answer.instance_id })
    assert.equal(fresh.instance.state, 'idle')
    const aliasAnswer = await ok(api, 'reset_instance', { instance_id: answer.instance_id })
    assert.notEqual(aliasAnswer.instance_id, answer.instance_id)
  })

  test('delete_instance logs out and deletes the instance with nothing in its place; its id is 404 everywhere', async () => {
    const id = await createInstance()
    await link(id, '15550100023')
    await ok(api, 'add_webhook', { instance_id: id, url: 'http://127.0.0.1:9/added' })
    const phoneLogout = core.sandbox!.control.events.waitFor('disconnect', (e) => e.phone === '15550100023')
    const countBefore = core.registry.all().length
    const answer = await ok(api, 'delete_instance', { instance_id: id })
    assert.deepEqual(answer, { status: 'success', message: 'Instance deleted', instance_id: id })
    await phoneLogout
    const account = core.sandbox!.control.accounts().find((a) => a.phone === '15550100023')
    assert.deepEqual(account?.linkedDevices, [], 'the phone no longer lists the device')
    assert.equal(core.registry.find(id), undefined)
    assert.equal(core.registry.all().length, countBefore - 1, 'no replacement was made')
    assert.equal(await core.authStore.exists(id), false)
    assert.equal(existsSync(join(dataDir, 'instances', id)), false)
    for (const name of ['instance', 'generate_qrcode', 'reconnect', 'destroy', 'delete_instance']) {
      assert.equal((await call(api, name, { instance_id: id })).status, 404, name)
    }
    const { instances } = await ok(api, 'instances')
    assert.equal(instances.filter((i: any) => i.instance_id === id).length, 0)
    assert.deepEqual(
      (await eventsOf(id, 'instance.destroyed')).map((e) => e.data),
      [{ reason: 'deleted' }],
    )
    const { events: created } = await ok(api, 'events', { event: 'instance.created', limit: 500 })
    assert.equal(created.filter((e: any) => e.data.replaces === id).length, 0, 'no instance replaces it')
    assert.deepEqual(
      (await ok(api, 'webhooks', {})).webhooks.filter((w: any) => w.instance_id === id),
      [],
    )
  })
})

describe('instance events', () => {
  test('create_instance and destroy announce instance.created; changes to its own and its added webhooks announce instance.updated', async () => {
    const id = await createInstance()
    const [created] = await eventsOf(id, 'instance.created')
    assert.equal(created.data.replaces, null)
    assert.equal(
      created.data.created_at,
      (await ok(api, 'instance', { instance_id: id })).instance.created_at,
    )

    await ok(api, 'set_webhook', { instance_id: id, webhook_url: 'http://127.0.0.1:9/hook', enable: 'false' })
    await ok(api, 'rotate_webhook_secret', { instance_id: id })
    const updates = await eventsOf(id, 'instance.updated')
    assert.deepEqual(
      updates.map((e) => e.data),
      [{ changed: ['webhook'] }, { changed: ['webhook'] }],
    )

    const { webhook } = await ok(api, 'add_webhook', { instance_id: id, url: 'http://127.0.0.1:9/added' })
    await ok(api, 'update_webhook', { webhook_id: webhook.webhook_id, events: ['message.*'] })
    await ok(api, 'update_webhook', { webhook_id: webhook.webhook_id, rotate_secret: true })
    await ok(api, 'remove_webhook', { webhook_id: webhook.webhook_id })
    assert.equal(
      (await eventsOf(id, 'instance.updated')).length,
      6,
      'add, two updates and remove announce it',
    )

    const { instance_id: newId } = await ok(api, 'destroy', { instance_id: id })
    const [replacement] = await eventsOf(newId, 'instance.created')
    assert.equal(replacement.data.replaces, id)
  })
})

describe('serialized operations', () => {
  test('concurrent generate_qrcode calls share one socket and one QR', async () => {
    const id = await createInstance()
    const answers = await Promise.all(
      Array.from({ length: 5 }, () => ok(api, 'generate_qrcode', { instance_id: id })),
    )
    assert.equal(new Set(answers.map((a) => decodeQr(a.base64))).size, 1)
    await ok(api, 'sandbox/link', { qr: decodeQr(answers[0].base64), phone: '15550100030' })
    await waitForStatus(core, id, (s) => s.state === 'connected', 'connection')
  })

  test('concurrent reconnects of a dropped instance log in once and all answer the connection data', async () => {
    const id = await createInstance()
    await link(id, '15550100031')
    let logins = 0
    const onLogin = (event: { phone: string }) => event.phone === '15550100031' && (logins += 1)
    core.sandbox!.control.events.on('login', onLogin)
    await ok(api, 'sandbox/accounts/15550100031/drop', { mode: 'close' })
    await waitForStatus(core, id, (s) => s.state === 'disconnected', 'disconnection')
    const answers = await Promise.all(
      Array.from({ length: 4 }, () => ok(api, 'reconnect', { instance_id: id })),
    )
    core.sandbox!.control.events.off('login', onLogin)
    assert.equal(new Set(answers.map((a) => a.data.id)).size, 1)
    assert.equal(logins, 1)
    assert.notEqual(core.instances.status(id).lastError?.cause, 'connection_replaced')
  })
})
