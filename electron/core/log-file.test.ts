import assert from 'node:assert/strict'
import { type EventEmitter, once } from 'node:events'
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { test } from 'node:test'
import { createLogger, openRotatingLogFile } from './logger'
import { eventually } from './testing/messaging-harness'

/** The numbers of the log files in `dir`, lowest first. */
function logNumbers(dir: string): number[] {
  return readdirSync(dir)
    .map((name) => /^linkdesk\.(\d+)\.log$/.exec(name))
    .map((match) => (match ? Number(match[1]) : Number.NaN))
    .sort((a, b) => a - b)
}

test('the log file is written and rolls over past its size, keeping the newest files', async () => {
  const dir = join(mkdtempSync(join(tmpdir(), 'linkdesk-logs-')), 'logs')
  try {
    const file = await openRotatingLogFile(dir, { maxBytes: 1024, keep: 2 })
    const log = createLogger('info', file.stream)
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

    // Old files are deleted after each roll-over, in the background.
    const numbers = await eventually(
      () => logNumbers(dir),
      (found) => found.length === 3,
      'the file written now and the 2 kept',
    )
    assert.ok(numbers.every(Number.isInteger), `only linkdesk.<n>.log files: ${readdirSync(dir).join(', ')}`)
    assert.ok(numbers[0]! > 1, `it rolled over and the oldest files were deleted: ${numbers.join(', ')}`)
    assert.deepEqual(numbers, [numbers[0]!, numbers[0]! + 1, numbers[0]! + 2])
    assert.equal(file.current(), join(dir, `linkdesk.${Math.max(...logNumbers(dir))}.log`))
    const closed = once(stream, 'close')
    file.close()
    await closed

    const lines = numbers
      .flatMap((number) => readFileSync(join(dir, `linkdesk.${number}.log`), 'utf8').split('\n'))
      .filter(Boolean)
    assert.ok(
      lines.every((line) => JSON.parse(line).msg),
      'every line is a whole JSON line',
    )
    assert.equal(JSON.parse(lines.at(-1)!).msg, 'the last line')
  } finally {
    rmSync(join(dir, '..'), { recursive: true, force: true })
  }
})
