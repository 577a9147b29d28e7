import assert from 'node:assert/strict'
import { createServer } from 'node:http'
import { createServer as createHttpsServer } from 'node:https'
import type { AddressInfo } from 'node:net'
import { test } from 'node:test'
import { DEFAULT_CONNECTION_CONFIG, WA_CERT_DETAILS } from '@whiskeysockets/baileys'
import selfsigned from 'selfsigned'
import { Writable } from 'node:stream'
import { createLogger } from '../logger'
import { DEFAULT_TIMINGS } from '../config'
import { fetchSandboxEndpoint, socketNetworkConfig } from './network-endpoint'
import { retryCounterCache, socketConfig } from './wa-session'

const WHATSAPP_ROOT_KEY = Buffer.from(WA_CERT_DETAILS.PUBLIC_KEY)
const EXTRA_CA_AT_START = process.env.NODE_EXTRA_CA_CERTS

function configFor(network: ReturnType<typeof socketNetworkConfig>, ignoreStatus = true) {
  return socketConfig({
    instanceId: 'I',
    logger: createLogger('info', new Writable({ write: (_chunk, _encoding, done) => done() })),
    timings: DEFAULT_TIMINGS,
    network,
    auth: { creds: {} as never, keys: { get: async () => ({}), set: async () => undefined } },
    retryCounter: retryCounterCache(),
    getMessage: async () => undefined,
    groupMetadata: async () => undefined,
    onDecrypted: () => undefined,
    holdKeyWrites: () => () => undefined,
    version: [2, 3000, 1],
    ignoreStatus: () => ignoreStatus,
  })
}

// Runs first: the sandbox case below changes Baileys' process-wide root key, as sandbox mode does.
test('without sandbox mode the socket targets WhatsApp itself and the trust root is untouched', async () => {
  const network = socketNetworkConfig({ kind: 'whatsapp' })
  const config = configFor(network)
  assert.equal(config.waWebSocketUrl, DEFAULT_CONNECTION_CONFIG.waWebSocketUrl)
  assert.equal(String(config.waWebSocketUrl), 'wss://web.whatsapp.com/ws/chat')
  assert.equal(config.fetchAgent, undefined)
  assert.ok(WA_CERT_DETAILS.PUBLIC_KEY.equals(WHATSAPP_ROOT_KEY))
  assert.equal(process.env.NODE_EXTRA_CA_CERTS, EXTRA_CA_AT_START)
  assert.equal(config.markOnlineOnConnect, false)
  assert.equal(config.syncFullHistory, false)
  assert.equal(config.shouldIgnoreJid?.('status@broadcast'), true)
  assert.equal(configFor(network, false).shouldIgnoreJid?.('status@broadcast'), false, 'unless asked for')
  assert.equal(configFor(network, false).shouldIgnoreJid?.('123@broadcast'), true)
  assert.equal(config.shouldIgnoreJid?.('123@newsletter'), false, 'posts of followed channels are read')
  assert.equal(config.shouldIgnoreJid?.('15551234567@s.whatsapp.net'), false)
  assert.equal(config.logger?.level, 'warn', 'Baileys logs at warn even when the app logs at info')
  assert.deepEqual(config.version, [2, 3000, 1], 'the version given, not one Baileys picks')
  await network.close()
})

test('in sandbox mode the socket targets the sandbox, trusts its root key and its media CA per socket', async () => {
  const pems = await selfsigned.generate([{ name: 'commonName', value: '127.0.0.1' }], {
    extensions: [{ name: 'subjectAltName', altNames: [{ type: 7, ip: '127.0.0.1' }] }],
  })
  const media = createHttpsServer({ key: pems.private, cert: pems.cert }, (_req, res) => res.end('media'))
  await new Promise<void>((resolve) => media.listen(0, '127.0.0.1', resolve))
  const rootPublicKey = Buffer.alloc(32, 7)
  const network = socketNetworkConfig({
    kind: 'sandbox',
    wsUrl: 'ws://127.0.0.1:1/ws/chat',
    rootPublicKey,
    mediaCaPem: pems.cert,
    versionUrl: '',
  })
  try {
    const config = configFor(network)
    assert.equal(config.waWebSocketUrl, 'ws://127.0.0.1:1/ws/chat')
    assert.ok(WA_CERT_DETAILS.PUBLIC_KEY.equals(rootPublicKey))
    assert.ok(config.fetchAgent)
    const url = `https://127.0.0.1:${(media.address() as AddressInfo).port}/`
    const response = await fetch(url, network.options)
    assert.equal(await response.text(), 'media')
    await assert.rejects(fetch(url), 'the process-wide trust is unchanged')
    assert.equal(process.env.NODE_EXTRA_CA_CERTS, EXTRA_CA_AT_START)
  } finally {
    await network.close()
    media.close()
  }
})

test('--sandbox-url learns the websocket, root key, media CA and version document from GET <control>/endpoint', async () => {
  const control = createServer((req, res) => {
    res.setHeader('content-type', 'application/json')
    if (req.url !== '/sandbox/endpoint') return res.writeHead(404).end('{}')
    res.end(
      JSON.stringify({
        status: 'success',
        websocket: 'ws://127.0.0.1:5/ws/chat',
        root_key: 'ab'.repeat(32),
        media_ca: 'PEM',
        version_url: 'http://127.0.0.1:5/sw.js',
      }),
    )
  })
  await new Promise<void>((resolve) => control.listen(0, '127.0.0.1', resolve))
  try {
    const base = `http://127.0.0.1:${(control.address() as AddressInfo).port}/sandbox`
    const endpoint = await fetchSandboxEndpoint(base)
    assert.deepEqual(endpoint, {
      kind: 'sandbox',
      wsUrl: 'ws://127.0.0.1:5/ws/chat',
      rootPublicKey: Buffer.from('ab'.repeat(32), 'hex'),
      mediaCaPem: 'PEM',
      versionUrl: 'http://127.0.0.1:5/sw.js',
    })
    await assert.rejects(fetchSandboxEndpoint(`${base}/missing`), { code: 'upstream_failed' })
  } finally {
    control.close()
  }
})
