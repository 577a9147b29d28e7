import assert from 'node:assert/strict'
import { test } from 'node:test'
import fc from 'fast-check'
import { FAST_TIMINGS } from '../testing/instance-harness'
import { startTestCore, TEST_TOKEN, type TestCore } from '../testing/test-core'
import {
  buildRequest,
  checkAnswer,
  credential,
  encoding,
  fuzzOptions,
  validLike,
  verb,
  weirdValue,
} from '../testing/fuzz-arbitraries'

/**
 * Property-based fuzzing of every operation the OpenAPI document lists: random verbs, encodings, parameter
 * types, sizes and credentials. Whatever arrives, the server answers with a success body or the error
 * envelope whose code matches its HTTP status, never a 5xx, and a rejected request changes nothing.
 * LINKDESK_FUZZ_RUNS sets the number of cases (default 150). api-fuzz-linked.test.ts does the same against a
 * linked instance.
 */

const OPTIONS = fuzzOptions(150)

interface OperationShape {
  path: string
  fields: Record<string, { type: string }>
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

/** The settings as data: records by id, keys sorted (a store may hand back an equal record in another order). */
function snapshot(t: TestCore): string {
  const byId = (records: Array<{ id: string }>) => [...records].sort((a, b) => a.id.localeCompare(b.id))
  const sortedKeys = (_key: string, value: unknown) =>
    value && typeof value === 'object' && !Array.isArray(value)
      ? Object.fromEntries(Object.entries(value).sort(([a], [b]) => a.localeCompare(b)))
      : value
  return JSON.stringify(
    { instances: byId(t.core.registry.all()), tokens: byId(t.core.tokens.list()) },
    sortedKeys,
  )
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
    // The operations: flat names answering GET and POST alike, their parameters from either.
    const operations = Object.entries(document.paths as Record<string, any>).filter(
      ([, item]) => item.get && item.post?.requestBody?.content['application/json'],
    )
    const shapes: OperationShape[] = operations.map(([path, item]) => {
      const schema = item.post.requestBody.content['application/json'].schema
      const fields = Object.fromEntries(
        Object.entries(schema.properties as Record<string, { type: string }>).filter(
          ([name]) => name !== 'access_token',
        ),
      )
      return { path, fields }
    })
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
          shape.path,
          params,
          { verb, encoding, credential },
          t.core.ui.value,
        )
        const response = await fetch(url, init)
        checkAnswer(`${verb} ${shape.path}`, response.status, await response.text())
        if (response.status >= 400) {
          assert.equal(snapshot(t), before, `a rejected ${shape.path} changed nothing`)
        }
      }),
      OPTIONS,
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
        'media_as',
        'view_once',
        'seconds',
        'location',
        'contacts',
        'reply_to',
        'mentions',
        'link_preview',
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
        checkAnswer(`${where.method} ${where.path}`, response.status, await response.text())
      }),
      OPTIONS,
    )
  } finally {
    await t.stop()
  }
})
