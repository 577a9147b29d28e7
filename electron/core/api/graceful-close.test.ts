import assert from 'node:assert/strict'
import { test } from 'node:test'
import { DEFAULT_LIMITS } from '../config'
import { silentLogger } from '../logger'
import { SettingsStore } from '../store/settings-store'
import { TokenService } from '../tokens/token-service'
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Authenticator, UiCredential } from './auth'
import { buildApi } from './build-api'
import { defineOperation } from './operation'

test('closing the server lets an in-flight request finish and refuses new ones', async () => {
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
  const tokens = new TokenService(new SettingsStore(mkdtempSync(join(tmpdir(), 'linkdesk-close-'))))
  const app = await buildApi({
    logger: silentLogger(),
    limits: DEFAULT_LIMITS,
    configuredHost: '127.0.0.1',
    version: 'test',
    auth: new Authenticator(tokens, new UiCredential(), 100),
    operations: [slow],
  })
  const url = await app.listen({ host: '127.0.0.1', port: 0 })
  const pending = fetch(`${url}/api/v1/slow`)
  await inFlight
  const closed = app.close()
  release()
  const response = await pending
  assert.equal(response.status, 200)
  assert.equal((await response.json()).message, 'finished')
  await closed
  await assert.rejects(fetch(`${url}/api/v1/slow`), 'no new connections after close')
})
