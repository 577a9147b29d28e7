import assert from 'node:assert/strict'
import { test } from 'node:test'
import { DEFAULT_LIMITS } from '../config'
import { silentLogger } from '../logger'
import { InstanceRegistry } from '../instances/instance-registry'
import { SingleNode } from '../cluster/single-node'
import { FileSettingsStore } from '../store/lmdb/settings'
import { TokenService } from '../tokens/token-service'
import { mkdtempSync } from 'node:fs'
import { connect } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Authenticator, UiCredential } from './auth'
import { buildApi } from './build-api'
import { callRouting } from './forwarding'
import { defineOperation } from './operation'

/** An API whose one operation, slow, answers when released; `inFlight` resolves once a call is in it. */
async function slowApi() {
  let release!: () => void
  let started!: () => void
  const inFlight = new Promise<void>((resolve) => (started = resolve))
  const slow = defineOperation({
    name: 'slow',
    tag: 'Test',
    summary: 'Answers when released.',
    auth: 'none',
    fields: {},
    handle: async () => {
      started()
      await new Promise<void>((resolve) => (release = resolve))
      return { status: 'success', message: 'finished' }
    },
  })
  const settings = new FileSettingsStore(mkdtempSync(join(tmpdir(), 'linkdesk-close-')))
  const tokens = new TokenService(settings)
  const registry = new InstanceRegistry(settings)
  const app = await buildApi({
    logger: silentLogger(),
    limits: DEFAULT_LIMITS,
    configuredHost: '127.0.0.1',
    version: 'test',
    auth: new Authenticator(tokens, new UiCredential(), 100),
    access: (id, principal) => registry.accessible(id, principal),
    operations: [slow],
    calls: callRouting(new SingleNode(), {
      settings,
      access: (id, principal) => registry.accessible(id, principal),
      known: () => true,
    }),
  })
  const url = await app.listen({ host: '127.0.0.1', port: 0 })
  return { app, url, inFlight, release: () => release() }
}

test('closing the server lets an in-flight request finish and refuses new ones', async () => {
  const { app, url, inFlight, release } = await slowApi()
  const pending = fetch(`${url}/api/v1/slow`)
  await inFlight
  const closed = app.close()
  await new Promise((resolve) => setTimeout(resolve, 20))
  release()
  const response = await pending
  assert.equal(response.status, 200)
  assert.equal(response.headers.get('connection'), 'close', 'the busy connection ends with its answer')
  assert.equal((await response.json()).message, 'finished')
  await closed
  await assert.rejects(fetch(`${url}/api/v1/slow`), 'no new connections after close')
})

test('a request still arriving on an open connection while the server closes gets the unavailable envelope', async () => {
  const { app, url, inFlight, release } = await slowApi()
  const pending = fetch(`${url}/api/v1/slow`)
  await inFlight
  // A second connection has sent part of a request when the server starts closing; the rest comes after.
  const socket = connect(Number(new URL(url).port), '127.0.0.1')
  await new Promise((resolve) => socket.once('connect', resolve))
  let received = ''
  socket.on('data', (chunk: Buffer) => (received += chunk.toString('utf8')))
  const ended = new Promise((resolve) => socket.on('close', resolve))
  socket.write('GET /api/v1/slow HTTP/1.1\r\nHost: 127.0.0.1\r\n')
  await new Promise((resolve) => setTimeout(resolve, 20))
  const closed = app.close()
  socket.write('Connection: keep-alive\r\n\r\n')
  release()
  assert.equal((await pending).status, 200)
  await ended
  await closed
  assert.match(received, /^HTTP\/1\.1 503 /)
  assert.match(received, /\r\nconnection: close\r\n/i)
  const body = JSON.parse(received.slice(received.indexOf('\r\n\r\n') + 4))
  assert.equal(body.status, 'error')
  assert.equal(body.code, 'unavailable')
})
