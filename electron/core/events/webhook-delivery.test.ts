import assert from 'node:assert/strict'
import { createHook } from 'node:async_hooks'
import { createServer, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { describe, test } from 'node:test'
import { Agent } from 'undici'
import { DEFAULT_EVENT_SETTINGS } from '../contract/event-settings'
import { attemptDelivery, parseRetryAfter, retryDelayMs } from './webhook-delivery'
import { signWebhook, verifyWebhookSignature } from './webhook-signature'

test('Retry-After is read as seconds or as an HTTP date', () => {
  const now = Date.parse('2026-01-01T00:00:00Z')
  assert.equal(parseRetryAfter('120', now), 120_000)
  assert.equal(parseRetryAfter('Thu, 01 Jan 2026 00:00:30 GMT', now), 30_000)
  assert.equal(parseRetryAfter('soon', now), undefined)
  assert.equal(parseRetryAfter(null, now), undefined)
})

test('the retry delay doubles per attempt, stays under the cap and keeps half of it fixed', () => {
  const settings = { ...DEFAULT_EVENT_SETTINGS.webhook, backoffBaseMs: 1_000, backoffMaxMs: 60_000 }
  assert.equal(
    retryDelayMs(1, settings, () => 0),
    500,
  )
  assert.equal(
    retryDelayMs(1, settings, () => 1),
    1_000,
  )
  assert.equal(
    retryDelayMs(3, settings, () => 1),
    4_000,
  )
  assert.equal(
    retryDelayMs(30, settings, () => 1),
    60_000,
  )
  assert.equal(
    retryDelayMs(30, settings, () => 0),
    30_000,
  )
})

test('a signature verifies only with the same secret, timestamp and body', () => {
  const signature = signWebhook('whsec_a', '1700000000', '{"a":1}')
  assert.match(signature, /^sha256=[0-9a-f]{64}$/)
  assert.ok(verifyWebhookSignature('whsec_a', '1700000000', '{"a":1}', signature))
  assert.ok(!verifyWebhookSignature('whsec_b', '1700000000', '{"a":1}', signature))
  assert.ok(!verifyWebhookSignature('whsec_a', '1700000001', '{"a":1}', signature))
  assert.ok(!verifyWebhookSignature('whsec_a', '1700000000', '{"a":2}', signature))
  assert.ok(!verifyWebhookSignature('whsec_a', '1700000000', '{"a":1}', 'sha256=00'))
})

describe('attemptDelivery against a real receiver', () => {
  const event = {
    event: 'message.received',
    event_id: 'E1',
    instance_id: 'I',
    timestamp: '1',
    data: {},
  } as const

  async function receiver(handle: (res: ServerResponse) => void) {
    const server = createServer((req, res) => {
      req.resume()
      req.on('end', () => handle(res))
    })
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    const { port } = server.address() as AddressInfo
    return { url: `http://127.0.0.1:${port}/hook`, close: () => server.close() }
  }

  function attempt(url: string, timeoutMs: number, stop = new AbortController().signal) {
    const dispatcher = new Agent()
    return attemptDelivery(
      { url, secret: 'whsec_t', events: [event], batched: false, attempt: 1 },
      { dispatcher, timeoutMs, now: Date.now, stop },
    ).finally(() => dispatcher.destroy())
  }

  test('a receiver that does not answer in time is a retry, with the timeout named', async () => {
    const open: ServerResponse[] = []
    const hook = await receiver((res) => open.push(res))
    const result = await attempt(hook.url, 150)
    assert.equal(result.kind, 'retry')
    assert.equal(result.kind === 'retry' && result.error, 'no answer within 150 ms')
    for (const res of open) res.destroy()
    hook.close()
  })

  test('stopping the core aborts an attempt in flight: neither success nor failure', async () => {
    const open: ServerResponse[] = []
    const hook = await receiver((res) => open.push(res))
    const stop = new AbortController()
    setTimeout(() => stop.abort(), 50)
    assert.deepEqual(await attempt(hook.url, 5_000, stop.signal), { kind: 'aborted' })
    for (const res of open) res.destroy()
    hook.close()
  })

  test('an attempt made after the core stopped is aborted at once', async () => {
    const hook = await receiver((res) => res.writeHead(204).end())
    const stop = new AbortController()
    stop.abort()
    assert.deepEqual(await attempt(hook.url, 5_000, stop.signal), { kind: 'aborted' })
    hook.close()
  })

  test('a 2xx answer is delivered', async () => {
    const hook = await receiver((res) => res.writeHead(204).end())
    const result = await attempt(hook.url, 5_000)
    assert.equal(result.kind, 'delivered')
    hook.close()
  })

  test('an error answer is judged on its status, its Retry-After and its first 200 characters; a redirect names where', async () => {
    const long = await receiver((res) =>
      res.writeHead(503, { 'retry-after': '7' }).end(`busy ${'x'.repeat(100_000)}`),
    )
    const busy = await attempt(long.url, 5_000)
    assert.equal(busy.kind, 'retry')
    assert.equal(busy.kind === 'retry' && busy.retryAfterMs, 7_000)
    assert.equal(busy.kind === 'retry' && busy.error, `HTTP 503: busy ${'x'.repeat(195)}`)
    long.close()

    const moved = await receiver((res) => res.writeHead(301, { location: 'http://elsewhere/hook' }).end())
    const result = await attempt(moved.url, 5_000)
    assert.equal(result.kind, 'reject')
    assert.match(result.kind === 'reject' ? result.error : '', /^HTTP 301: .*\(to http:\/\/elsewhere\/hook\)/)
    moved.close()

    const refused = await attempt('http://127.0.0.1:1/hook', 5_000)
    assert.equal(refused.kind, 'retry')
    assert.equal(refused.kind === 'retry' && refused.error, 'network error: ECONNREFUSED')
  })

  test('POSTs to a keep-alive receiver share one connection, and each makes under 24 async resources on its thread', async (t) => {
    // Each async resource (promise, tick, timer, stream) is work on the main thread for every event posted:
    // through undici's request() and its response stream a POST made 36 (17 since it is dispatched directly).
    let connections = 0
    const server = createServer((req, res) => {
      req.resume()
      req.on('end', () => res.writeHead(200, { 'content-type': 'text/plain' }).end('ok'))
    })
    server.on('connection', () => (connections += 1))
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`
    const dispatcher = new Agent()
    const post = () =>
      attemptDelivery(
        { url, secret: 'whsec_t', events: [event], batched: false, attempt: 1 },
        { dispatcher, timeoutMs: 5_000, now: Date.now, stop: new AbortController().signal },
      )
    for (let i = 0; i < 5; i++) assert.equal((await post()).kind, 'delivered')
    let resources = 0
    const counting = createHook({ init: () => (resources += 1) })
    const POSTS = 50
    counting.enable()
    for (let i = 0; i < POSTS; i++) await post()
    counting.disable()
    t.diagnostic(`async resources per POST: ${resources / POSTS}`)
    assert.ok(resources / POSTS < 24, `${resources / POSTS} async resources per POST`)
    assert.equal(connections, 1)
    await dispatcher.close()
    server.close()
  })
})
