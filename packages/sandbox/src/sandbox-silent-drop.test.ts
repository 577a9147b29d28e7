import assert from 'node:assert/strict'
import { after, before, test } from 'node:test'
import type { Sandbox } from './index'
import { linkedClient, startTestSandbox } from './testing/sandbox-fixture'
import type { SandboxClient } from './testing/sandbox-client'

// In a file of its own: Baileys needs its keepalive interval + 5 s of silence to notice, so this runs
// beside the other files instead of after them.
const ME = '15550001111'

let sandbox: Sandbox
let device: SandboxClient

before(async () => {
  sandbox = await startTestSandbox()
  device = await linkedClient(sandbox, ME, { keepAliveIntervalMs: 1000 })
})

after(async () => {
  await device.stop()
  await sandbox.close()
})

test('a link that goes silent is detected by the keepalive as lost (408), and the device logs back in', async () => {
  const closes = device.closes.length
  const opens = device.opens
  await sandbox.control.drop(ME, 'silent')
  const closed = await device.waitForClose(closes + 1, 15_000)
  assert.equal(closed.code, 408)
  assert.match(closed.message, /lost/i)
  await device.waitForOpen(opens + 1)
})
