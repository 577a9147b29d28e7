import assert from 'node:assert/strict'
import { test } from 'node:test'
import { ConfigError, DEFAULT_LIMITS, DEFAULT_PORT, parseConfig } from './config'

test('defaults bind loopback on the documented port with the documented limits', () => {
  const config = parseConfig({ dataDir: '/tmp/x' })
  assert.equal(config.host, '127.0.0.1')
  assert.equal(config.port, DEFAULT_PORT)
  assert.deepEqual(config.network, { kind: 'whatsapp' })
  assert.deepEqual(config.limits, DEFAULT_LIMITS)
})

test('a bad port is refused with a message naming the setting and the value', () => {
  assert.throws(
    () => parseConfig({ port: '80a' }),
    (error: Error) => {
      assert.ok(error instanceof ConfigError)
      assert.match(error.message, /port must be a whole number from 0 to 65535 \(got "80a"\)/)
      return true
    },
  )
  assert.throws(() => parseConfig({ port: 70000 }), /port must be/)
})

test('sandbox and sandbox-url together are refused, and sandbox-url must be an http URL', () => {
  assert.throws(
    () => parseConfig({ sandbox: true, sandboxUrl: 'http://127.0.0.1:1/sandbox' }),
    /either --sandbox/,
  )
  assert.throws(() => parseConfig({ sandboxUrl: 'not a url' }), /control URL/)
  assert.throws(() => parseConfig({ sandboxUrl: 'ftp://127.0.0.1/sandbox' }), /http:\/\//)
  assert.deepEqual(parseConfig({ sandboxUrl: 'http://127.0.0.1:7000/sandbox/' }).network, {
    kind: 'sandbox-url',
    controlUrl: 'http://127.0.0.1:7000/sandbox',
  })
})

test('unknown limits, negative limits and a zero body limit are refused', () => {
  assert.throws(() => parseConfig({ limits: { bogus: 1 } as never }), /Unknown limit "bogus"/)
  assert.throws(() => parseConfig({ limits: { textChars: -1 } }), /textChars must be a whole number/)
  assert.throws(() => parseConfig({ limits: { bodyBytes: 0 } }), /bodyBytes must be greater than 0/)
  assert.equal(parseConfig({ limits: { sendIntervalMs: '0' } }).limits.sendIntervalMs, 0)
})

test('a short or spaced access token and an unknown log level are refused', () => {
  assert.throws(() => parseConfig({ accessToken: 'short' }), /LINKDESK_ACCESS_TOKEN must be 8 to 256/)
  assert.throws(() => parseConfig({ accessToken: 'has a space in it' }), /LINKDESK_ACCESS_TOKEN/)
  assert.throws(() => parseConfig({ logLevel: 'loud' }), /log level must be one of/)
})

test('a relative data dir is made absolute', () => {
  assert.ok(parseConfig({ dataDir: 'rel/dir' }).dataDir.startsWith('/'))
})

test('a cluster node: its id, advertised address and lease TTL are checked, and need a PostgreSQL store', () => {
  const store = 'postgres://linkdesk@127.0.0.1:5432/linkdesk'
  const node = parseConfig({
    dataDir: '/tmp/x',
    store,
    nodeId: 'node-a',
    advertiseUrl: 'http://10.0.0.11:8686/',
    leaseTtlMs: '5000',
  })
  assert.deepEqual(node.cluster, {
    nodeId: 'node-a',
    advertiseUrl: 'http://10.0.0.11:8686',
    leaseTtlMs: 5_000,
    leaseMarginMs: 1_000,
  })
  assert.deepEqual(parseConfig({ dataDir: '/tmp/x', store }).cluster, {
    leaseTtlMs: 10_000,
    leaseMarginMs: 2_000,
  })
  assert.throws(() => parseConfig({ nodeId: 'node-a' }), /need a shared store/)
  assert.throws(() => parseConfig({ store, nodeId: 'node a' }), /node-id must be/)
  assert.throws(() => parseConfig({ store, advertiseUrl: 'ftp://x' }), /advertise-url must be/)
  assert.throws(() => parseConfig({ store, advertiseUrl: 'http://x:1/api' }), /without a path/)
  assert.throws(() => parseConfig({ store, leaseTtlMs: '500' }), /lease-ttl-ms must be/)
})
