import assert from 'node:assert/strict'
import { after, before, test } from 'node:test'
import { startTestCore, type TestCore } from '../testing/test-core'
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
  assert.ok(media.responses['200'].content['application/octet-stream'])
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
