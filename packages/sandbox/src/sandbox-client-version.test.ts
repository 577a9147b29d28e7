import assert from 'node:assert/strict'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { test } from 'node:test'
import { DEFAULT_CONNECTION_CONFIG } from '@whiskeysockets/baileys'
import pino from 'pino'
import { createSandbox } from '.'
import { parseClientRevision } from './protocol/client-version'

const bundled = DEFAULT_CONNECTION_CONFIG.version.join('.')
const silentLogger = () => pino({ level: 'silent' })

async function documentVersion(url: string): Promise<string | undefined> {
  const response = await fetch(url)
  assert.equal(response.status, 200)
  const revision = parseClientRevision(await response.text())
  const [primary, secondary] = DEFAULT_CONNECTION_CONFIG.version
  return revision === undefined ? undefined : `${primary}.${secondary}.${revision}`
}

test('the version document announces the current version; the policy is checked and kept across a restart', async () => {
  const stateDir = mkdtempSync(join(tmpdir(), 'linkdesk-sandbox-versions-'))
  let sandbox = await createSandbox({ logger: silentLogger(), stateDir })
  try {
    assert.match(sandbox.endpoint.versionUrl, /^http:\/\/127\.0\.0\.1:\d+\/sw\.js$/)
    assert.equal(await documentVersion(sandbox.endpoint.versionUrl), bundled)
    assert.deepEqual(await sandbox.control.clientVersion({}), { current: bundled, minimum: null })
    await assert.rejects(sandbox.control.clientVersion({ minimum: '2.3000' }), {
      code: 'invalid_parameter',
      message: /minimum/,
    })

    const moved = await sandbox.control.clientVersion({
      current: '2.3000.1200000000',
      minimum: '2.3000.1100000000',
    })
    assert.deepEqual(moved, { current: '2.3000.1200000000', minimum: '2.3000.1100000000' })
    assert.equal(await documentVersion(sandbox.endpoint.versionUrl), '2.3000.1200000000')
    assert.equal((await fetch(sandbox.endpoint.versionUrl.replace('sw.js', 'other'))).status, 404)

    await sandbox.close()
    sandbox = await createSandbox({ logger: silentLogger(), stateDir })
    assert.deepEqual(await sandbox.control.clientVersion({}), moved)
    assert.equal(await documentVersion(sandbox.endpoint.versionUrl), '2.3000.1200000000')
    assert.deepEqual(await sandbox.control.clientVersion({ minimum: null }), {
      current: '2.3000.1200000000',
      minimum: null,
    })
  } finally {
    await sandbox.close()
    rmSync(stateDir, { recursive: true, force: true })
  }
})
