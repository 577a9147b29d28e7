import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { startTestCore, TEST_TOKEN, type TestCore } from '../testing/test-core'

describe('one authentication step for every route', () => {
  let t: TestCore
  before(async () => {
    t = await startTestCore({ sandbox: true })
  })
  after(async () => {
    await t.stop()
  })

  test('every secured operation of the OpenAPI document and every other API route refuses a missing or unknown token', async () => {
    const document = (await t.call('/openapi.json')).body
    // The operations: flat names answering GET and POST (the other routes follow below).
    const secured = Object.entries(
      document.paths as Record<string, { get?: { security: unknown[] }; post?: unknown }>,
    )
      .filter(([, item]) => item.get && item.post && item.get.security.length > 0)
      .map(([path]) => path)
    assert.ok(secured.length > 20, `${secured.length} secured operations`)
    const routes = ['/stream', '/metrics', '/media/I/M', '/sandbox/accounts']
    for (const path of [...secured, ...routes]) {
      const missing = await t.call(path)
      assert.equal(missing.status, 401, `${path}: ${JSON.stringify(missing.body)}`)
      assert.equal(missing.body.code, 'unauthorized', path)
      const unknown = await t.call(`${path}?access_token=not-a-known-token`)
      assert.equal(unknown.status, 401, path)
    }
    const upload = await t.call('/uploads', { method: 'POST', body: 'file' })
    assert.equal(upload.status, 401)
  })

  test('a token in a JSON body, a form body or the Bearer header is read before any handler', async () => {
    const shapes = [
      await t.call('/instances', { method: 'POST', json: { access_token: TEST_TOKEN } }),
      await t.call('/instances', {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: `access_token=${TEST_TOKEN}`,
      }),
      await t.call('/metrics', { headers: { authorization: `Bearer ${TEST_TOKEN}` } }),
    ]
    for (const answer of shapes) assert.equal(answer.status, 200, JSON.stringify(answer.body))
  })

  test('admin operations refuse a token without the admin scope (403) and answer the window and an admin token', async () => {
    const { token: reader } = await t.core.tokens.create('reader', { reach: 'all', scopes: ['read'] })
    const refused = await t.call(`/admin/tokens?access_token=${reader}`)
    assert.equal(refused.status, 403)
    assert.equal(refused.body.code, 'insufficient_scope')
    assert.equal(refused.body.details.required_scope, 'admin')
    assert.ok(!JSON.stringify(refused.body).includes('tok_'), 'a refusal lists no token')
    const admin = await t.call(`/admin/tokens?access_token=${TEST_TOKEN}`)
    assert.equal(admin.status, 200, 'LINKDESK_ACCESS_TOKEN holds every scope')
    const window = await t.call('/admin/tokens', { headers: { authorization: `Bearer ${t.core.ui.value}` } })
    assert.equal(window.status, 200)
  })

  test('open routes answer without a token', async () => {
    assert.equal((await t.call('/health')).status, 200)
    assert.equal((await t.call('/openapi.json')).status, 200)
  })
})
