import assert from 'node:assert/strict'
import { readFileSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { after, before, describe, test } from 'node:test'
import type { Core } from '../index'
import { decodeQr, startCore, tempDataDir, TOKEN, waitForStatus } from '../testing/instance-harness'
import { eventually } from '../testing/messaging-harness'
import { waitFor, WebhookReceiver } from '../testing/webhook-receiver'

const PHONE_A = '15550101001'
const PHONE_B = '15550101002'
const CONTACT = '15550101009'

/** Calls an operation over HTTP with a credential: an access token, or the window's (ui credential or cookie). */
async function callWith(
  core: Core,
  credential: { token: string } | { cookie: string },
  name: string,
  params: Record<string, unknown> = {},
): Promise<{ status: number; body: any; headers: Headers }> {
  const headers: Record<string, string> = { 'content-type': 'application/json' }
  if ('cookie' in credential) headers.cookie = credential.cookie
  else headers.authorization = `Bearer ${credential.token}`
  const response = await fetch(`${core.apiBase}/${name}`, {
    method: 'POST',
    headers,
    body: JSON.stringify(params),
  })
  return { status: response.status, body: await response.json(), headers: response.headers }
}

describe('who may use an instance: a token’s reach and scopes', () => {
  const dataDir = tempDataDir()
  let core: Core
  let window: { token: string }
  const env = { token: TOKEN }
  let instanceA: string
  let instanceB: string
  // The upgrade test rewrites the embedded store's settings file (config.json): this file is about LMDB.
  const start = () =>
    startCore({ dataDir, store: 'lmdb', sandbox: true, limits: { sendIntervalMs: 0, sendJitterMs: 0 } })

  /** Creates an instance as the window does and links it with a sandbox phone. */
  async function windowLinked(phone: string, tokenIds?: string[]): Promise<string> {
    const created = await callWith(core, window, 'create_instance', { token_ids: tokenIds })
    assert.equal(created.status, 200, JSON.stringify(created.body))
    const id = created.body.instance_id as string
    const qr = await callWith(core, window, 'generate_qrcode', { instance_id: id })
    const scan = { qr: decodeQr(qr.body.base64), phone, name: `Account ${phone}` }
    assert.equal((await callWith(core, window, 'sandbox/link', scan)).status, 200)
    await waitForStatus(core, id, (s) => s.state === 'connected', 'connection')
    return id
  }

  before(async () => {
    core = await start()
    window = { token: core.ui.value }
    await core.sandbox!.control.addAccount({ phone: CONTACT, name: 'Carol' })
    instanceA = await windowLinked(PHONE_A)
    instanceB = await windowLinked(PHONE_B)
  })
  after(async () => {
    await core?.close()
    rmSync(dataDir, { recursive: true, force: true })
  })

  test('an instance linked in the window is listed, sent from and hooked by LINKDESK_ACCESS_TOKEN, whose global webhook hears it', async () => {
    const receiver = await WebhookReceiver.start()
    const own = await WebhookReceiver.start()
    try {
      const listed = await callWith(core, env, 'instances')
      const ids = listed.body.instances.map((instance: any) => instance.instance_id)
      assert.ok(ids.includes(instanceA) && ids.includes(instanceB), JSON.stringify(listed.body))

      const global = await callWith(core, env, 'add_webhook', { url: receiver.url, events: ['message.*'] })
      assert.equal(global.status, 200, JSON.stringify(global.body))
      assert.equal(global.body.webhook.instance_id, null)
      const hook = await callWith(core, env, 'set_webhook', {
        instance_id: instanceA,
        webhook_url: own.url,
        enable: true,
      })
      assert.equal(hook.status, 200, JSON.stringify(hook.body))
      const got = await callWith(core, env, 'get_webhook', { instance_id: instanceA })
      assert.equal(got.body.webhook.url, own.url)

      const sent = await callWith(core, env, 'send_message', {
        instance_id: instanceA,
        number: CONTACT,
        type: 'text',
        message: 'Sent by the script',
      })
      assert.equal(sent.status, 200, JSON.stringify(sent.body))
      await eventually(
        () => core.sandbox!.control.inbox(CONTACT),
        (inbox) => inbox.some((entry) => JSON.stringify(entry).includes('Sent by the script')),
        'the contact’s inbox has the message',
      )
      await core.sandbox!.control.send(CONTACT, { to: PHONE_A, text: 'Reply to A' })
      const replyTo = (delivery: { event: any }) =>
        delivery.event.event === 'message.received' &&
        delivery.event.instance_id === instanceA &&
        delivery.event.data.text === 'Reply to A'
      await receiver.until(() => receiver.received.some(replyTo))
      await own.until(() => own.received.some(replyTo))
      const log = await callWith(core, env, 'events', { event: 'message.received' })
      assert.ok(
        log.body.events.some((event: any) => event.instance_id === instanceA),
        'its event log shows it',
      )
    } finally {
      await callWith(core, env, 'set_webhook', {
        instance_id: instanceA,
        webhook_url: own.url,
        enable: false,
      })
      for (const hook of (await callWith(core, env, 'webhooks')).body.webhooks)
        await callWith(core, env, 'remove_webhook', { webhook_id: hook.webhook_id })
      await receiver.close()
      await own.close()
    }
  })

  test('a token reaching only instance A: B is 404 like an unknown id, an admin operation and a missing scope are 403', async () => {
    const created = await callWith(core, env, 'admin/tokens/create', {
      label: 'only A',
      reach: 'chosen',
      scopes: ['read', 'send', 'manage'],
      instance_ids: [instanceA],
    })
    assert.equal(created.status, 200, JSON.stringify(created.body))
    assert.deepEqual(created.body.info.instance_ids, [instanceA])
    const onlyA = { token: created.body.token as string }

    const listed = await callWith(core, onlyA, 'instances')
    assert.deepEqual(
      listed.body.instances.map((instance: any) => instance.instance_id),
      [instanceA],
    )
    const foreign = await callWith(core, onlyA, 'instance', { instance_id: instanceB })
    const unknown = await callWith(core, onlyA, 'instance', { instance_id: 'NO_SUCH_INSTANCE' })
    assert.equal(foreign.status, 404)
    assert.equal(foreign.body.code, 'instance_not_found')
    assert.deepEqual(foreign.body, unknown.body, 'B’s existence does not show')
    const sendToB = await callWith(core, onlyA, 'send_message', {
      instance_id: instanceB,
      number: CONTACT,
      type: 'text',
      message: 'never sent',
    })
    assert.equal(sendToB.status, 404)

    for (const admin of ['admin/tokens', 'sandbox/accounts']) {
      const refused = await callWith(core, onlyA, admin)
      assert.equal(refused.status, 403, `${admin}: ${JSON.stringify(refused.body)}`)
      assert.equal(refused.body.code, 'insufficient_scope')
      assert.equal(refused.body.details.required_scope, 'admin')
    }
    const reader = await callWith(core, env, 'admin/tokens/create', {
      label: 'reader',
      reach: 'all',
      scopes: ['read'],
    })
    const readOnly = { token: reader.body.token as string }
    assert.equal((await callWith(core, readOnly, 'instances')).body.instances.length >= 2, true)
    const before = core.sandbox!.control.inbox(CONTACT).length
    const refusedSend = await callWith(core, readOnly, 'send_message', {
      instance_id: instanceA,
      number: CONTACT,
      type: 'text',
      message: 'not allowed',
    })
    assert.equal(refusedSend.status, 403)
    assert.equal(refusedSend.body.details.required_scope, 'send')
    assert.equal(core.sandbox!.control.inbox(CONTACT).length, before, 'nothing was sent')

    const sentOnA = await callWith(core, onlyA, 'send_message', {
      instance_id: instanceA,
      number: CONTACT,
      type: 'text',
      message: 'Sent by the A-only script',
    })
    assert.equal(sentOnA.status, 200, JSON.stringify(sentOnA.body))
    await eventually(
      () => core.sandbox!.control.inbox(CONTACT),
      (inbox) => inbox.some((entry) => JSON.stringify(entry).includes('Sent by the A-only script')),
      'the contact’s inbox has the message',
    )
  })

  test('a global webhook follows its token’s reach, and the instance’s page may choose more tokens', async () => {
    const created = await callWith(core, env, 'admin/tokens/create', { label: 'hooked', reach: 'chosen' })
    const hooked = { token: created.body.token as string, id: created.body.info.id as string }
    const receiver = await WebhookReceiver.start()
    try {
      const global = await callWith(core, hooked, 'add_webhook', {
        url: receiver.url,
        events: ['message.received'],
      })
      assert.equal(global.status, 200, JSON.stringify(global.body))
      await core.sandbox!.control.send(CONTACT, { to: PHONE_B, text: 'Before B was chosen' })
      // B's phone has it before B's linked device (the app) does: wait for the app's own log.
      let earlier: any
      await waitFor(
        async () => {
          const before = await callWith(core, env, 'events', {
            instance_id: instanceB,
            event: 'message.received',
          })
          earlier = before.body.events.find((event: any) => event.data.text === 'Before B was chosen')
          return earlier !== undefined
        },
        30_000,
        'B logged it',
      )

      const chosen = await callWith(core, window, 'admin/set_instance_access', {
        instance_id: instanceB,
        token_ids: [hooked.id],
      })
      assert.equal(chosen.status, 200, JSON.stringify(chosen.body))
      assert.deepEqual(chosen.body.access.token_ids, [hooked.id])
      const shown = await callWith(core, window, 'admin/instance_access', { instance_id: instanceB })
      const by = Object.fromEntries(shown.body.access.tokens.map((token: any) => [token.label, token.by]))
      assert.equal(by.hooked, 'chosen')
      assert.equal(by.LINKDESK_ACCESS_TOKEN, 'all')
      assert.equal(by['only A'], undefined, 'a token not chosen is not listed')

      await core.sandbox!.control.send(CONTACT, { to: PHONE_B, text: 'After B was chosen' })
      await receiver.until(() =>
        receiver.received.some((delivery) => delivery.event.data?.text === 'After B was chosen'),
      )
      assert.ok(
        !receiver.received.some((delivery) => delivery.event.event_id === earlier.event_id),
        'the event from before it reached B was never sent to it',
      )
      assert.equal((await callWith(core, hooked, 'instance', { instance_id: instanceB })).status, 200)
    } finally {
      await receiver.close()
    }
  })

  test('a token that creates an instance keeps it whatever its reach; bad access input changes nothing', async () => {
    const created = await callWith(core, env, 'admin/tokens/create', { label: 'own script', reach: 'chosen' })
    const own = { token: created.body.token as string, id: created.body.info.id as string }
    const made = await callWith(core, own, 'create_instance', { name: 'Own' })
    assert.equal(made.status, 200)
    const ids = (await callWith(core, own, 'instances')).body.instances.map((i: any) => i.instance_id)
    assert.deepEqual(ids, [made.body.instance_id])
    const envIds = (await callWith(core, env, 'instances')).body.instances.map((i: any) => i.instance_id)
    assert.ok(envIds.includes(made.body.instance_id), 'the token reaching all sees it too')

    const badScope = await callWith(core, env, 'admin/tokens/access', {
      token_id: own.id,
      reach: 'all',
      scopes: ['read', 'everything'],
    })
    assert.equal(badScope.status, 400)
    assert.equal(badScope.body.code, 'invalid_parameter')
    const badInstance = await callWith(core, env, 'admin/tokens/access', {
      token_id: own.id,
      reach: 'chosen',
      scopes: ['read'],
      instance_ids: [instanceA, 'NO_SUCH_INSTANCE'],
    })
    assert.equal(badInstance.status, 404)
    const badToken = await callWith(core, env, 'create_instance', { token_ids: ['tok_nosuch'] })
    assert.equal(badToken.status, 400)
    const after = (await callWith(core, env, 'admin/tokens')).body.tokens.find((t: any) => t.id === own.id)
    assert.deepEqual(
      { reach: after.reach, scopes: after.scopes, instance_ids: after.instance_ids },
      { reach: 'chosen', scopes: ['read', 'send', 'manage', 'admin'], instance_ids: [made.body.instance_id] },
      'nothing changed',
    )
    const ownToken = await callWith(core, own, 'create_instance', { token_ids: [own.id] })
    assert.equal(ownToken.status, 200, 'an admin-scoped token may name tokens too')
  })

  test('tokens and instances kept before reach existed upgrade: LINKDESK_ACCESS_TOKEN reaches all, others their own, every scope', async () => {
    const created = await callWith(core, env, 'admin/tokens/create', { label: 'old script' })
    const old = { token: created.body.token as string }
    const theirs = (await callWith(core, old, 'create_instance')).body.instance_id as string
    await core.close()
    // The settings as an older version kept them: no reach, no scopes, no chosen tokens.
    const file = join(dataDir, 'config.json')
    const settings = JSON.parse(readFileSync(file, 'utf8'))
    for (const token of Object.values<any>(settings.tokens)) {
      delete token.reach
      delete token.scopes
    }
    for (const instance of Object.values<any>(settings.instances)) delete instance.tokens
    writeFileSync(file, JSON.stringify(settings))
    core = await start()
    window = { token: core.ui.value }

    const oldIds = (await callWith(core, old, 'instances')).body.instances.map((i: any) => i.instance_id)
    assert.deepEqual(oldIds, [theirs], 'an older token still reaches exactly what it created')
    assert.equal((await callWith(core, old, 'admin/tokens')).status, 200, 'with every scope')
    const envIds = (await callWith(core, env, 'instances')).body.instances.map((i: any) => i.instance_id)
    assert.ok([instanceA, instanceB, theirs].every((id) => envIds.includes(id)))
    const listed = (await callWith(core, env, 'admin/tokens')).body.tokens
    const envInfo = listed.find((token: any) => token.label === 'LINKDESK_ACCESS_TOKEN')
    assert.deepEqual([envInfo.reach, envInfo.scopes], ['all', ['read', 'send', 'manage', 'admin']])
  })

  test('a window session survives a restart, works beside another, and ends at log-out', async () => {
    const login = async () => {
      const code = new URL(core.createLoginUrl()).hash.replace('#login=', '')
      const answer = await callWith(core, { cookie: '' }, 'admin/session', { code })
      assert.equal(answer.status, 200)
      const setCookie = answer.headers.get('set-cookie') ?? ''
      assert.match(setCookie, /HttpOnly/)
      assert.match(setCookie, /SameSite=Strict/)
      assert.ok(answer.body.expires_at > Date.now() / 1000, 'it has an expiry')
      return { cookie: setCookie.split(';')[0]! }
    }
    const first = await login()
    const second = await login()
    assert.equal((await callWith(core, first, 'admin/tokens')).status, 200)
    assert.equal((await callWith(core, second, 'admin/tokens')).status, 200)
    const stored = readFileSync(join(dataDir, 'config.json'), 'utf8')
    assert.ok(!stored.includes(first.cookie.split('=')[1]!), 'only its hash is kept')

    await core.close()
    core = await start()
    assert.equal((await callWith(core, first, 'instances')).status, 200, 'the session outlives the restart')

    const out = await callWith(core, first, 'admin/logout')
    assert.equal(out.status, 200)
    assert.match(out.headers.get('set-cookie') ?? '', /Max-Age=0/)
    const refused = await callWith(core, first, 'instances')
    assert.equal(refused.status, 401)
    assert.equal(refused.body.code, 'unauthorized')
    assert.equal((await callWith(core, second, 'instances')).status, 200, 'the other session goes on')

    const wrongToken = await callWith(core, { cookie: '' }, 'admin/login', { token: 'ldk_not_a_token' })
    assert.equal(wrongToken.status, 401)
    const narrow = await callWith(core, env, 'admin/tokens/create', { label: 'narrow', scopes: ['read'] })
    const notAdmin = await callWith(core, { cookie: '' }, 'admin/login', { token: narrow.body.token })
    assert.equal(notAdmin.status, 403)
    const byToken = await callWith(core, { cookie: '' }, 'admin/login', { token: TOKEN })
    assert.equal(byToken.status, 200)
    const cookie = (byToken.headers.get('set-cookie') ?? '').split(';')[0]!
    assert.equal((await callWith(core, { cookie }, 'admin/tokens')).status, 200)
  })
})
