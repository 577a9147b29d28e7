import { testStore } from '../testing/test-store'
import assert from 'node:assert/strict'
import { request as httpRequest } from 'node:http'
import { after, before, describe, test } from 'node:test'
import { startTestCore, TEST_TOKEN, type TestCore } from '../testing/test-core'

/** Sends a raw request so the Host and Origin headers can be set freely. */
function rawRequest(
  url: string,
  options: { method?: string; headers?: Record<string, string>; body?: string },
): Promise<{ status: number; body: any }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(url, { method: options.method ?? 'GET', headers: options.headers }, (res) => {
      let text = ''
      res.on('data', (chunk) => (text += chunk))
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(text) }))
    })
    req.on('error', reject)
    req.end(options.body)
  })
}

function assertEnvelope(body: any, code: string): void {
  assert.equal(body.status, 'error')
  assert.equal(body.code, code)
  assert.equal(typeof body.message, 'string')
  assert.ok(body.message.length > 10, 'the message is a sentence')
}

describe('v1 foundation over real HTTP', () => {
  let t: TestCore
  before(async () => {
    t = await startTestCore()
  })
  after(async () => {
    await t.stop()
  })

  test('health answers success without a token', async () => {
    const { status, body } = await t.call('/health')
    assert.equal(status, 200)
    assert.equal(body.status, 'success')
    const clustered = testStore() === 'postgres'
    const keys = ['message', 'status', 'version', 'wa_version', ...(clustered ? ['cluster'] : [])]
    assert.deepEqual(Object.keys(body).sort(), keys.sort())
    if (clustered) {
      // On a shared store the node is a cluster of one: itself, live, holding nothing yet.
      assert.equal(body.cluster.lease_alive, true)
      assert.equal(body.cluster.leases, 0)
      const me = body.cluster.nodes.find((node: { id: string }) => node.id === body.cluster.node_id)
      assert.equal(me.live, true)
      assert.equal(me.address, t.core.url)
      // Its metrics carry its node id.
      const metrics = await fetch(`${t.base}/metrics`, { headers: { authorization: `Bearer ${TEST_TOKEN}` } })
      const text = await metrics.text()
      const node = `{node="${body.cluster.node_id}"}`
      assert.ok(text.includes(`linkdesk_node_leases${node} 0\n`), text)
      assert.ok(text.includes(`linkdesk_node_lease_alive${node} 1\n`))
      assert.ok(text.includes(`linkdesk_node_instances_lost_total${node} 0\n`))
    }
    // This core never fetches (no version URL): the version Baileys was released with.
    assert.deepEqual(Object.keys(body.wa_version).sort(), ['checked_at', 'source', 'version'])
    assert.equal(body.wa_version.source, 'bundled')
    assert.match(body.wa_version.version, /^2\.3000\.\d+$/)
  })

  test('create_instance answers the seed body for GET, JSON, form and Bearer shapes', async () => {
    const shapes = [
      await t.call(`/create_instance?access_token=${TEST_TOKEN}`),
      await t.call('/create_instance', { method: 'POST', json: { access_token: TEST_TOKEN } }),
      await t.call('/create_instance', {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: `access_token=${TEST_TOKEN}`,
      }),
      await t.call('/create_instance', {
        method: 'POST',
        headers: { authorization: `Bearer ${TEST_TOKEN}` },
      }),
    ]
    const ids = new Set<string>()
    for (const { status, body } of shapes) {
      assert.equal(status, 200)
      assert.deepEqual(Object.keys(body).sort(), ['instance_id', 'message', 'status'])
      assert.equal(body.status, 'success')
      assert.match(body.instance_id, /^[0-9A-F]{24}$/)
      ids.add(body.instance_id)
    }
    assert.equal(ids.size, 4, 'every instance gets its own unguessable id')
  })

  test('a missing or unknown token is 401 unauthorized in the envelope', async () => {
    const missing = await t.call('/create_instance')
    assert.equal(missing.status, 401)
    assertEnvelope(missing.body, 'unauthorized')
    const wrong = await t.call('/create_instance?access_token=not-the-token')
    assert.equal(wrong.status, 401)
    assertEnvelope(wrong.body, 'unauthorized')
    const badBearer = await t.call('/create_instance', {
      headers: { authorization: 'Bearer nope-nope-nope' },
    })
    assert.equal(badBearer.status, 401)
  })

  test("another token's instance is instance_not_found over HTTP, as if it did not exist", async () => {
    const created = await t.call(`/create_instance?access_token=${TEST_TOKEN}`)
    const id = created.body.instance_id as string
    const other = (await t.core.tokens.create('other script')).token
    const asOwner = await t.call(`/instance?access_token=${TEST_TOKEN}&instance_id=${id}`)
    assert.equal(asOwner.status, 200)
    const asOther = await t.call(`/instance?access_token=${other}&instance_id=${id}`)
    assert.equal(asOther.status, 404)
    assertEnvelope(asOther.body, 'instance_not_found')
    const unknown = await t.call(`/instance?access_token=${other}&instance_id=NO_SUCH_INSTANCE`)
    assert.deepEqual(unknown.body, asOther.body, 'a foreign id and an unknown id answer alike')
    const listed = await t.call(`/instances?access_token=${other}`)
    assert.equal(JSON.stringify(listed.body).includes(id), false, 'the other token does not see it listed')
  })

  test('framework errors use the envelope: bad JSON, non-object JSON, unknown path, wrong verb, wrong type, too large', async () => {
    const badJson = await t.call('/create_instance', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"access_token": ',
    })
    assert.equal(badJson.status, 400)
    assertEnvelope(badJson.body, 'invalid_body')

    const arrayJson = await t.call('/create_instance', { method: 'POST', json: [1, 2] })
    assert.equal(arrayJson.status, 400)
    assertEnvelope(arrayJson.body, 'invalid_body')

    const unknown = await t.call('/no_such_operation')
    assert.equal(unknown.status, 404)
    assertEnvelope(unknown.body, 'not_found')

    const wrongVerb = await t.call('/create_instance', { method: 'DELETE' })
    assert.equal(wrongVerb.status, 405)
    assertEnvelope(wrongVerb.body, 'method_not_allowed')

    const wrongType = await t.call('/create_instance', {
      method: 'POST',
      headers: { 'content-type': 'text/csv' },
      body: 'a,b',
    })
    assert.equal(wrongType.status, 415)
    assertEnvelope(wrongType.body, 'unsupported_media_type')

    const tooLarge = await t.call('/create_instance', {
      method: 'POST',
      json: { access_token: TEST_TOKEN, pad: 'x'.repeat(1024 * 1024 + 10) },
    })
    assert.equal(tooLarge.status, 413)
    assertEnvelope(tooLarge.body, 'payload_too_large')
  })

  test('a URL too long for the HTTP parser still answers the envelope (431 headers_too_large)', async () => {
    const { status, body } = await t.call(
      `/create_instance?access_token=${TEST_TOKEN}&pad=${'x'.repeat(20_000)}`,
    )
    assert.equal(status, 431)
    assertEnvelope(body, 'headers_too_large')
  })

  test('a parameter given twice or of the wrong JSON type is invalid_parameter naming it', async () => {
    const twice = await t.call(`/admin/session?code=a&code=b`)
    assert.equal(twice.status, 400)
    assertEnvelope(twice.body, 'invalid_parameter')
    assert.match(twice.body.message, /code/)
    const wrongType = await t.call('/admin/session', { method: 'POST', json: { code: 42 } })
    assert.equal(wrongType.status, 400)
    assert.match(wrongType.body.message, /code must be a string/)
    const missing = await t.call('/admin/session', { method: 'POST', json: {} })
    assert.equal(missing.status, 400)
    assertEnvelope(missing.body, 'missing_parameter')
    assert.deepEqual(missing.body.details, { parameters: ['code'] })
  })

  test('a Host header that is not a loopback name is refused (DNS rebinding)', async () => {
    const url = `${t.base}/health`
    const rebinding = await rawRequest(url, { headers: { host: 'attacker.example:8686' } })
    assert.equal(rebinding.status, 403)
    assertEnvelope(rebinding.body, 'forbidden_host')
    for (const host of ['localhost:1', '127.0.0.1', '[::1]:5']) {
      assert.equal((await rawRequest(url, { headers: { host } })).status, 200, host)
    }
  })

  test('a foreign Origin is refused and no CORS header is ever sent', async () => {
    const foreign = await rawRequest(`${t.base}/create_instance?access_token=${TEST_TOKEN}`, {
      headers: { origin: 'https://evil.example' },
    })
    assert.equal(foreign.status, 403)
    assertEnvelope(foreign.body, 'forbidden_origin')
    const own = await t.call('/health', { headers: { origin: t.core.url } })
    assert.equal(own.status, 200)
    assert.equal(own.headers.get('access-control-allow-origin'), null)
  })

  test('the operator window logs in once with the one-time code and can manage tokens', async () => {
    const code = new URL(t.core.createLoginUrl()).hash.replace('#login=', '')
    const session = await t.call('/admin/session', { method: 'POST', json: { code } })
    assert.equal(session.status, 200)
    const cookie = (session.headers.get('set-cookie') ?? '').split(';')[0]!
    assert.match(cookie, /^linkdesk_session=lds_/)
    const reused = await t.call('/admin/session', { method: 'POST', json: { code } })
    assert.equal(reused.status, 401, 'the code works once')

    const { token: sender } = await t.core.tokens.create('sender', { scopes: ['read', 'send'] })
    const asScript = await t.call(`/admin/tokens?access_token=${sender}`)
    assert.equal(asScript.status, 403, 'a token without the admin scope cannot manage tokens')

    const auth = { cookie }
    const created = await t.call('/admin/tokens/create', {
      method: 'POST',
      headers: auth,
      json: { label: 'ci bot' },
    })
    assert.equal(created.status, 200)
    const newToken = created.body.token as string
    const listed = await t.call('/admin/tokens', { headers: auth })
    assert.ok(listed.body.tokens.some((info: any) => info.label === 'ci bot'))
    assert.ok(!JSON.stringify(listed.body).includes(newToken), 'token values are never listed')

    assert.equal((await t.call(`/create_instance?access_token=${newToken}`)).status, 200)
    const revoked = await t.call('/admin/tokens/revoke', {
      method: 'POST',
      headers: auth,
      json: { token_id: created.body.info.id },
    })
    assert.equal(revoked.status, 200)
    assert.equal((await t.call(`/create_instance?access_token=${newToken}`)).status, 401)
    const revokeAgain = await t.call('/admin/tokens/revoke', {
      method: 'POST',
      headers: auth,
      json: { token_id: created.body.info.id },
    })
    assert.equal(revokeAgain.status, 404)
    assertEnvelope(revokeAgain.body, 'token_not_found')
  })

  test('the OpenAPI document lists every operation with GET and POST and the error codes', async () => {
    const { status, body } = await t.call('/openapi.json')
    assert.equal(status, 200)
    assert.equal(body.openapi, '3.1.0')
    assert.ok(body.paths['/create_instance'].get)
    assert.ok(body.paths['/create_instance'].post)
    assert.match(body.components.responses.Error.description, /unauthorized \(401\)/)
    const docs = await fetch(`${t.base}/docs/`)
    assert.equal(docs.status, 200)
    assert.match(await docs.text(), /Swagger UI/)
  })
})

test('registering LINKDESK_ACCESS_TOKEN again on restart keeps one token', async () => {
  const first = await startTestCore()
  const dataDir = first.dataDir
  await first.core.close()
  const second = await startTestCore({ dataDir })
  try {
    const tokens = second.core.tokens.list().filter((info) => info.source === 'env')
    assert.equal(tokens.length, 1)
    assert.equal((await second.call(`/create_instance?access_token=${TEST_TOKEN}`)).status, 200)
  } finally {
    await second.stop()
  }
})

test('a start on a port already taken fails clearly and leaves the data folder usable by the next start', async () => {
  const first = await startTestCore()
  const port = Number(new URL(first.core.url).port)
  try {
    await assert.rejects(startTestCore({ port, dataDir: first.dataDir }), /EADDRINUSE/)
  } finally {
    await first.core.close()
  }
  const again = await startTestCore({ dataDir: first.dataDir })
  try {
    assert.equal((await again.call('/health')).status, 200)
  } finally {
    await again.stop()
  }
})
