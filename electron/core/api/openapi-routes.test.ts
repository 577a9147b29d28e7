import assert from 'node:assert/strict'
import { after, before, test } from 'node:test'
import { startTestCore, TEST_TOKEN, type TestCore } from '../testing/test-core'
import { API_PREFIX } from './build-api'

/**
 * `METHOD /path` for every route fastify serves under the API prefix, read from its own route tree
 * (`printRoutes`), with `:name` written `{name}` as OpenAPI does. HEAD, which fastify adds beside every GET,
 * and the docs UI's pages are left out.
 */
function servedRoutes(tree: string): string[] {
  const stack: string[] = []
  const served: string[] = []
  for (const line of tree.split('\n')) {
    const match = /^(.*?)[├└]── (.+?) \(([^)]+)\)$/.exec(line)
    if (!match) continue
    const depth = match[1]!.length / 4
    const path = (depth > 0 ? stack[depth - 1]! : '') + match[2]!
    stack[depth] = path
    if (!path.startsWith(`${API_PREFIX}/`) || path.startsWith(`${API_PREFIX}/docs`)) continue
    const url = path
      .slice(API_PREFIX.length)
      .replace(/:(\w+)/g, '{$1}')
      .replace(/(.)\/$/, '$1')
    for (const method of match[3]!.split(', ').filter((name) => name !== 'HEAD'))
      served.push(`${method} ${url}`)
  }
  return [...new Set(served)].sort()
}

let t: TestCore
before(async () => {
  t = await startTestCore({ sandbox: true })
})
after(async () => {
  await t.stop()
})

test('every route served under the API prefix is in the document, and every path of the document is served', async () => {
  const document = (await t.call('/openapi.json')).body
  const declared = Object.entries(document.paths as Record<string, Record<string, unknown>>)
    .flatMap(([path, item]) => Object.keys(item).map((method) => `${method.toUpperCase()} ${path}`))
    .sort()
  const served = servedRoutes(t.core.http.printRoutes({ commonPrefix: false }))
  for (const route of ['GET /stream', 'GET /metrics', 'POST /uploads', 'GET /uploads/{id}'])
    assert.ok(served.includes(route), `${route} is served`)
  assert.ok(served.includes('GET /media/{instanceId}/{messageId}'))
  assert.ok(served.includes('GET /profile_picture/{instanceId}/{chat}'))
  assert.ok(served.includes('POST /sandbox/accounts/{phone}/messages'))
  assert.deepEqual(declared, served)
})

test('a route that answers a file declares its path parameters and the type it answers', async () => {
  const document = (await t.call('/openapi.json')).body
  const media = document.paths['/media/{instanceId}/{messageId}'].get
  assert.deepEqual(
    media.parameters
      .filter((parameter: any) => parameter.in === 'path')
      .map((parameter: any) => parameter.name),
    ['instanceId', 'messageId'],
  )
  assert.deepEqual(Object.keys(media.responses['200'].content), [
    'image/*',
    'video/*',
    'audio/*',
    'application/*',
    'text/*',
    '*/*',
  ])
  for (const parameter of media.parameters.filter((parameter: any) => parameter.in === 'path'))
    assert.equal(typeof parameter.example, 'string', `${parameter.name} has an example`)
  const picture = document.paths['/profile_picture/{instanceId}/{chat}'].get
  assert.ok(picture.responses['200'].content['image/jpeg'])
  const upload = document.paths['/uploads'].post
  assert.deepEqual(upload.responses['200'].content['application/json'].schema.required, [
    'status',
    'message',
    'upload_id',
    'url',
    'size',
    'expires_at',
  ])
})

test('a sandbox control route declares the body its schema validates and its answer', async () => {
  const document = (await t.call('/openapi.json')).body
  const send = document.paths['/sandbox/accounts/{phone}/messages'].post
  const body = send.requestBody.content['application/json'].schema
  assert.deepEqual(body.required, ['to'])
  assert.equal(body.properties.media_base64.format, 'byte')
  assert.deepEqual(send.responses['200'].content['application/json'].schema.required, ['status', 'id'])
  assert.equal(send.parameters.find((parameter: any) => parameter.name === 'phone').example, '15550002222')
  for (const [path, item] of Object.entries(document.paths as Record<string, Record<string, any>>)) {
    for (const operation of Object.values(item)) {
      for (const parameter of (operation.parameters ?? []).filter(
        (parameter: any) => parameter.in === 'path',
      ))
        assert.equal(typeof parameter.example, 'string', `${path}: ${parameter.name} has an example`)
    }
  }
  const bad = await t.call('/sandbox/accounts', {
    method: 'POST',
    json: { name: 'No number' },
    headers: { authorization: `Bearer ${TEST_TOKEN}` },
  })
  assert.equal(bad.status, 400)
  assert.deepEqual(bad.body, { status: 'error', code: 'missing_parameter', message: 'phone is required.' })
})

test('the MCP endpoint declares a JSON-RPC message or a batch, and /openapi.json an object', async () => {
  const document = (await t.call('/openapi.json')).body
  const mcp = document.paths['/mcp'].post
  const [one, batch] = mcp.requestBody.content['application/json'].schema.anyOf
  assert.deepEqual(one.required, ['jsonrpc', 'method'])
  assert.equal(batch.type, 'array')
  assert.ok(mcp.responses['200'].content['application/json'].schema.anyOf)
  const self = document.paths['/openapi.json'].get.responses['200'].content['application/json'].schema
  assert.equal(self.type, 'object')
})
