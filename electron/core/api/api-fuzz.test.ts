import assert from 'node:assert/strict'
import { test } from 'node:test'
import fc from 'fast-check'
import { ERROR_CODES, type ErrorCode } from '../errors'
import { FAST_TIMINGS } from '../instances/testing/instance-harness'
import { startTestCore, TEST_TOKEN, type TestCore } from '../testing/test-core'

/**
 * Property-based fuzzing of every operation the OpenAPI document lists: random verbs, encodings, parameter
 * types, sizes and credentials. Whatever arrives, the server answers with a success body or the error
 * envelope whose code matches its HTTP status, never a 5xx, and a rejected request changes nothing.
 * LINKDESK_FUZZ_RUNS sets the number of cases (default 150).
 */

const RUNS = Number(process.env.LINKDESK_FUZZ_RUNS ?? 150)

interface OperationShape {
  path: string
  fields: Record<string, { type: string }>
}

const weirdValue = fc.oneof(
  fc.string({ maxLength: 40 }),
  fc.string({ unit: 'grapheme', maxLength: 20 }),
  fc.integer(),
  fc.double(),
  fc.boolean(),
  fc.constant(null),
  fc.array(fc.string({ maxLength: 5 }), { maxLength: 3 }),
  fc.dictionary(fc.string({ maxLength: 5 }), fc.string({ maxLength: 5 }), { maxKeys: 2 }),
  fc.constantFrom(
    '',
    ' ',
    'true',
    'false',
    '0',
    '-1',
    '1e309',
    'http://127.0.0.1:1/x',
    'ftp://x',
    '../../etc',
  ),
  fc.constantFrom('15550001111', '+1 (555) 000-1111', '123@g.us', 'x@s.whatsapp.net', 'text', 'media'),
  fc.nat({ max: 70_000 }).map((n) => 'y'.repeat(n)),
)

function validLike(type: string): fc.Arbitrary<unknown> {
  if (type === 'boolean') return fc.constantFrom(true, false, 'true', 'false')
  if (type === 'integer') return fc.integer({ min: -5, max: 1000 })
  return fc.string({ minLength: 1, maxLength: 30 })
}

function paramsFor(shape: OperationShape, instanceIds: string[]): fc.Arbitrary<Record<string, unknown>> {
  const entries = Object.entries(shape.fields).map(([name, spec]) => {
    const base =
      name === 'instance_id' && instanceIds.length > 0
        ? fc.oneof(fc.constantFrom(...instanceIds), weirdValue)
        : fc.oneof(validLike(spec.type), weirdValue)
    return [name, fc.option(base, { nil: undefined })] as const
  })
  return fc.record(Object.fromEntries(entries)) as fc.Arbitrary<Record<string, unknown>>
}

const credential = fc.constantFrom('query', 'body', 'bearer', 'none', 'wrong', 'operator')
const verb = fc.constantFrom('GET', 'POST', 'POST', 'POST', 'PUT', 'DELETE', 'PATCH')
const encoding = fc.constantFrom('json', 'form', 'query', 'garbage-json', 'text-plain', 'empty-json')

function encodeForm(params: Record<string, unknown>): string {
  const form = new URLSearchParams()
  for (const [key, value] of Object.entries(params)) {
    if (value !== undefined) form.append(key, typeof value === 'string' ? value : JSON.stringify(value))
  }
  return form.toString()
}

function buildRequest(
  base: string,
  shape: OperationShape,
  params: Record<string, unknown>,
  how: { verb: string; encoding: string; credential: string },
  uiToken: string,
): { url: string; init: RequestInit } {
  const all: Record<string, unknown> = { ...params }
  const headers: Record<string, string> = {}
  if (how.credential === 'query' || how.credential === 'body') all.access_token = TEST_TOKEN
  if (how.credential === 'wrong') all.access_token = 'wrong-token-value'
  if (how.credential === 'bearer') headers.authorization = `Bearer ${TEST_TOKEN}`
  if (how.credential === 'operator') headers.authorization = `Bearer ${uiToken}`
  const url = new URL(`${base}${shape.path}`)
  const bodyAllowed = how.verb !== 'GET'
  if (!bodyAllowed || how.encoding === 'query') {
    for (const [key, value] of new URLSearchParams(encodeForm(all))) url.searchParams.append(key, value)
    return { url: url.toString(), init: { method: how.verb, headers } }
  }
  if (how.credential === 'query') url.searchParams.set('access_token', TEST_TOKEN)
  switch (how.encoding) {
    case 'form':
      headers['content-type'] = 'application/x-www-form-urlencoded'
      return { url: url.toString(), init: { method: how.verb, headers, body: encodeForm(all) } }
    case 'garbage-json':
      headers['content-type'] = 'application/json'
      return { url: url.toString(), init: { method: how.verb, headers, body: '{"a":' } }
    case 'text-plain':
      headers['content-type'] = 'text/plain'
      return { url: url.toString(), init: { method: how.verb, headers, body: 'hello' } }
    case 'empty-json':
      headers['content-type'] = 'application/json'
      return { url: url.toString(), init: { method: how.verb, headers, body: '' } }
    default:
      headers['content-type'] = 'application/json'
      return { url: url.toString(), init: { method: how.verb, headers, body: JSON.stringify(all) } }
  }
}

function snapshot(t: TestCore): string {
  return JSON.stringify({ instances: t.core.registry.all(), tokens: t.core.tokens.list() })
}

test('every operation answers random requests with a success body or a matching error envelope, never a 5xx', async () => {
  // The sandbox is the network, so operations that reach it (a QR wait, a send) answer as they would for real.
  const t = await startTestCore({
    sandbox: true,
    limits: { requestsPerMinute: 1_000_000 },
    timings: FAST_TIMINGS,
  })
  try {
    const document = (await t.call('/openapi.json')).body
    const shapes: OperationShape[] = Object.entries(document.paths as Record<string, any>).map(
      ([path, item]) => {
        const schema = item.post.requestBody.content['application/json'].schema
        const fields = Object.fromEntries(
          Object.entries(schema.properties as Record<string, { type: string }>).filter(
            ([name]) => name !== 'access_token',
          ),
        )
        return { path, fields }
      },
    )
    assert.ok(shapes.length > 5, 'the document lists the operations')
    const instanceIds: string[] = []
    for (let i = 0; i < 2; i++) {
      instanceIds.push((await t.call(`/create_instance?access_token=${TEST_TOKEN}`)).body.instance_id)
    }
    const cases = fc.constantFrom(...shapes).chain((shape) =>
      fc.record({
        shape: fc.constant(shape),
        params: paramsFor(shape, instanceIds),
        verb,
        encoding,
        credential,
      }),
    )

    await fc.assert(
      fc.asyncProperty(cases, async ({ shape, params, verb, encoding, credential }) => {
        const before = snapshot(t)
        const { url, init } = buildRequest(
          t.base,
          shape,
          params,
          { verb, encoding, credential },
          t.core.ui.value,
        )
        const response = await fetch(url, init)
        const text = await response.text()
        assert.ok(response.status < 500, `${verb} ${shape.path} answered ${response.status}: ${text}`)
        const body = JSON.parse(text)
        if (response.status >= 400) {
          assert.equal(body.status, 'error')
          assert.ok(body.code in ERROR_CODES, `known code ${body.code}`)
          assert.equal(
            ERROR_CODES[body.code as ErrorCode].status,
            response.status,
            'the status matches the code table',
          )
          assert.equal(typeof body.message, 'string')
          assert.equal(snapshot(t), before, `a rejected ${shape.path} changed nothing`)
        } else {
          assert.equal(body.status, 'success', `${shape.path} success body`)
        }
      }),
      { numRuns: RUNS },
    )
  } finally {
    await t.stop()
  }
})

test('the sandbox control API answers random bodies with a success body or the error envelope, never a 5xx', async () => {
  const t = await startTestCore({
    sandbox: true,
    limits: { requestsPerMinute: 1_000_000 },
    timings: FAST_TIMINGS,
  })
  try {
    const known = '15550009999'
    assert.equal(
      (
        await t.call('/sandbox/accounts', {
          method: 'POST',
          json: { access_token: TEST_TOKEN, phone: known },
        })
      ).status,
      200,
    )
    const phone = fc.oneof(
      fc.constantFrom(known, '15550001111', '0', 'abc', '%20', '..'),
      fc.string({ maxLength: 12 }),
    )
    const route = fc.oneof(
      fc.constant({ method: 'POST', path: '/sandbox/link' }),
      fc.constant({ method: 'POST', path: '/sandbox/accounts' }),
      fc.constant({ method: 'GET', path: '/sandbox/accounts' }),
      fc.constant({ method: 'POST', path: '/sandbox/groups' }),
      phone.map((p) => ({ method: 'GET', path: `/sandbox/accounts/${encodeURIComponent(p)}/messages` })),
      phone.map((p) => ({ method: 'POST', path: `/sandbox/accounts/${encodeURIComponent(p)}/messages` })),
      phone.map((p) => ({ method: 'POST', path: `/sandbox/accounts/${encodeURIComponent(p)}/drop` })),
    )
    const body = fc.dictionary(
      fc.constantFrom(
        'qr',
        'phone',
        'name',
        'auto_reply',
        'to',
        'text',
        'subject',
        'participants',
        'mode',
        'media_base64',
      ),
      fc.oneof(weirdValue, fc.array(fc.constantFrom(known, '1', 'x'), { maxLength: 3 })),
      { maxKeys: 5 },
    )
    await fc.assert(
      fc.asyncProperty(route, body, credential, async (where, fields, how) => {
        const headers: Record<string, string> = {}
        if (how === 'bearer' || how === 'query' || how === 'body')
          headers.authorization = `Bearer ${TEST_TOKEN}`
        if (how === 'wrong') headers.authorization = 'Bearer wrong-token-value'
        const init: RequestInit = { method: where.method, headers }
        if (where.method === 'POST') {
          headers['content-type'] = 'application/json'
          init.body = JSON.stringify(fields)
        }
        const response = await fetch(`${t.base}${where.path}`, init)
        const text = await response.text()
        assert.ok(
          response.status < 500,
          `${where.method} ${where.path} answered ${response.status}: ${text.slice(0, 300)}`,
        )
        const answer = JSON.parse(text)
        if (response.status >= 400) {
          assert.equal(answer.status, 'error')
          assert.equal(ERROR_CODES[answer.code as ErrorCode]?.status, response.status, `code ${answer.code}`)
        } else {
          assert.equal(answer.status, 'success')
        }
      }),
      { numRuns: RUNS },
    )
  } finally {
    await t.stop()
  }
})
