// What --fsync costs: emit() with and without an fsync per journal append, on the data folder's disk.
// Run once by hand (npx tsx bench/journal-fsync.ts [dir]); docs/operations.md states the figures.
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { eventFixture, FAST_EVENT_SETTINGS } from '../electron/core/testing/event-fixture'

const EVENTS = 2000
const root = process.argv[2] ?? tmpdir()

for (const fsync of [false, true, false, true]) {
  const dir = mkdtempSync(join(root, 'linkdesk-fsync-'))
  const fixture = await eventFixture(FAST_EVENT_SETTINGS, dir, { fsync })
  fixture.addInstance('I', null, false)
  const started = process.hrtime.bigint()
  for (let n = 0; n < EVENTS; n++) fixture.service.emit('I', 'webhook.test', { message: `event ${n}` })
  const perEventUs = Number(process.hrtime.bigint() - started) / 1000 / EVENTS
  await fixture.close()
  rmSync(dir, { recursive: true, force: true })
  console.log(`fsync ${fsync ? 'on ' : 'off'}: ${perEventUs.toFixed(1)} µs per emit (${EVENTS} events)`)
}
