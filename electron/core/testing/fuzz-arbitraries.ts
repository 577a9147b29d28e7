import assert from 'node:assert/strict'
import fc from 'fast-check'
import { ERROR_CODES, type ErrorCode } from '../errors'
import { TEST_TOKEN } from './test-core'

/**
 * Cases of a fuzz property: `byDefault` (small, so npm test stays fast), or LINKDESK_FUZZ_RUNS divided by
 * `requestsPerCase` when a case is a sequence of that many requests, so one setting sizes every property.
 */
function fuzzRuns(byDefault: number, requestsPerCase = 1): number {
  const wanted = process.env.LINKDESK_FUZZ_RUNS
  if (wanted === undefined || wanted === '') return byDefault
  const runs = Number(wanted)
  assert.ok(
    Number.isSafeInteger(runs) && runs > 0,
    `LINKDESK_FUZZ_RUNS must be a positive integer: ${wanted}`,
  )
  return Math.max(1, Math.ceil(runs / requestsPerCase))
}

/** fast-check parameters of a fuzz property: its runs, and LINKDESK_FUZZ_SEED to replay a reported failure. */
export function fuzzOptions(
  byDefault: number,
  requestsPerCase = 1,
): { numRuns: number; seed?: number; includeErrorInReport: boolean } {
  const seed = process.env.LINKDESK_FUZZ_SEED
  return {
    numRuns: fuzzRuns(byDefault, requestsPerCase),
    ...(seed ? { seed: Number(seed) } : {}),
    // node:test prints the message only: the failed assertion must be in it.
    includeErrorInReport: true,
  }
}

/** Values of the wrong type, shape or size for any parameter. */
export const weirdValue = fc.oneof(
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

/** A value of the declared type (in range or not). */
export function validLike(type: string): fc.Arbitrary<unknown> {
  if (type === 'boolean') return fc.constantFrom(true, false, 'true', 'false')
  if (type === 'integer') return fc.integer({ min: -5, max: 1000 })
  if (type === 'number') return fc.oneof(fc.double({ min: -200, max: 200, noNaN: true }), fc.constant('12.5'))
  if (type === 'list')
    return fc.oneof(fc.array(fc.string({ maxLength: 16 }), { maxLength: 4 }), fc.constant('1,2'))
  return fc.string({ minLength: 1, maxLength: 30 })
}

/** How the access token is given: as a parameter, a bearer header, not at all, wrong, or the window's. */
export const credential = fc.constantFrom('query', 'body', 'bearer', 'none', 'wrong', 'operator')
export const verb = fc.constantFrom('GET', 'POST', 'POST', 'POST', 'PUT', 'DELETE', 'PATCH')
export const encoding = fc.constantFrom(
  'json',
  'form',
  'multipart',
  'multipart-with-file',
  'query',
  'garbage-json',
  'text-plain',
  'empty-json',
  'empty-array-json',
)

export interface RequestHow {
  verb: string
  encoding: string
  credential: string
}

export function encodeForm(params: Record<string, unknown>): string {
  const form = new URLSearchParams()
  for (const [key, value] of Object.entries(params)) {
    if (value !== undefined) form.append(key, typeof value === 'string' ? value : JSON.stringify(value))
  }
  return form.toString()
}

/** The fetch arguments of a request to `path` with `params`, sent as `how` says. */
export function buildRequest(
  base: string,
  path: string,
  params: Record<string, unknown>,
  how: RequestHow,
  uiToken: string,
): { url: string; init: RequestInit & { headers: Record<string, string> } } {
  const all: Record<string, unknown> = { ...params }
  const headers: Record<string, string> = {}
  if (how.credential === 'query' || how.credential === 'body') all.access_token = TEST_TOKEN
  if (how.credential === 'wrong') all.access_token = 'wrong-token-value'
  if (how.credential === 'bearer') headers.authorization = `Bearer ${TEST_TOKEN}`
  if (how.credential === 'operator') headers.authorization = `Bearer ${uiToken}`
  const url = new URL(`${base}${path}`)
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
    case 'empty-array-json':
      // Everything in the query string, as PHP's HTTP clients send it.
      for (const [key, value] of new URLSearchParams(encodeForm(all))) url.searchParams.append(key, value)
      headers['content-type'] = 'application/json'
      return { url: url.toString(), init: { method: how.verb, headers, body: '[]' } }
    case 'multipart':
    case 'multipart-with-file': {
      const form = new FormData()
      for (const [key, value] of new URLSearchParams(encodeForm(all))) form.append(key, value)
      if (how.encoding === 'multipart-with-file') {
        form.append('file', new Blob([Buffer.from('%PDF-1.4\n%%EOF\n')]), 'a.pdf')
      }
      return { url: url.toString(), init: { method: how.verb, headers, body: form } }
    }
    default:
      headers['content-type'] = 'application/json'
      return { url: url.toString(), init: { method: how.verb, headers, body: JSON.stringify(all) } }
  }
}

/**
 * Checks the API's answer contract and answers the parsed body: never a 5xx, and either a success body or
 * the error envelope whose code is in the table with exactly this HTTP status.
 */
export function checkAnswer(what: string, status: number, text: string): any {
  assert.ok(status < 500, `${what} answered ${status}: ${text.slice(0, 300)}`)
  const body = JSON.parse(text)
  if (status >= 400) {
    assert.equal(body.status, 'error', `${what}: error envelope`)
    assert.ok(body.code in ERROR_CODES, `${what}: known code ${body.code}`)
    assert.equal(
      ERROR_CODES[body.code as ErrorCode].status,
      status,
      `${what}: ${body.code} has status ${status}`,
    )
    assert.equal(typeof body.message, 'string', `${what}: error message`)
  } else {
    assert.equal(body.status, 'success', `${what}: success body`)
  }
  return body
}
