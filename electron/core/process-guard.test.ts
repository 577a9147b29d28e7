import assert from 'node:assert/strict'
import { spawnSync } from 'node:child_process'
import { test } from 'node:test'

const CHILD = `
import { createLogger } from './electron/core/logger.ts'
import { logUnhandledRejections } from './electron/core/process-guard.ts'
logUnhandledRejections(createLogger('info'))
void Promise.reject(new Error('a background task failed'))
setTimeout(() => process.stdout.write('still running\\n'), 50)
`

test('an unhandled rejection is logged as an error and the process carries on', () => {
  const child = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', CHILD], {
    encoding: 'utf8',
    timeout: 20_000,
  })
  assert.equal(child.status, 0, child.stderr)
  assert.match(child.stdout, /still running/)
  const logged = child.stderr
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as { level: number; msg: string; err?: { message: string } })
  const entry = logged.find((line) => line.msg.startsWith('unhandled promise rejection'))
  assert.ok(entry, child.stderr)
  assert.equal(entry.level, 50)
  assert.equal(entry.err?.message, 'a background task failed')
})
