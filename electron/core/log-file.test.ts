import assert from 'node:assert/strict'
import { type EventEmitter, once } from 'node:events'
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { basename, join } from 'node:path'
import { test } from 'node:test'
import { createLogger, openRotatingLogFile } from './logger'

test('the log file is written and rolls over past its size, keeping the newest files', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'linkdesk-logs-'))
  try {
    const file = await openRotatingLogFile(join(dir, 'logs'), { maxBytes: 1024, keep: 2 })
    const log = createLogger('info', file.stream)
    const first = file.current()
    const stream = file.stream as unknown as EventEmitter
    for (let line = 0; line < 100; line += 1) {
      const written = once(stream, 'write')
      log.info({ line, filler: 'x'.repeat(60) }, 'a line')
      // One line a write: the file rolls over after the write that passes its size.
      await written
    }
    const written = once(stream, 'write')
    log.info({ line: 'last' }, 'the last line')
    await written
    const last = file.current()
    const closed = once(stream, 'close')
    file.close()
    await closed

    const files = readdirSync(join(dir, 'logs')).sort()
    assert.ok(
      files.every((name) => /^linkdesk\.\d+\.log$/.test(name)),
      files.join(', '),
    )
    assert.equal(files.length, 3, `the file written now and the 2 kept: ${files.join(', ')}`)
    assert.notEqual(last, first, 'it rolled over')
    assert.ok(!files.includes(basename(first)), 'the oldest files were deleted')
    const current = readFileSync(last, 'utf8').trim().split('\n')
    assert.equal(JSON.parse(current.at(-1)!).msg, 'the last line')
    assert.ok(
      current.every((line) => JSON.parse(line).msg),
      'every line is a whole JSON line',
    )
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
})
