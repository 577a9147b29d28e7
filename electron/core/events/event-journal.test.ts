import assert from 'node:assert/strict'
import { mkdtempSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { test } from 'node:test'
import { createIdFactory } from '../contract/event-id'
import { EventJournal, type JournalRecord } from './event-journal'
import { storedEvent } from '../testing/stored-event'

function record(id: string): JournalRecord {
  return { stored: storedEvent(id) }
}

test('the journal keeps records across both files until they are committed, then empties them', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'linkdesk-journal-'))
  t.after(() => rmSync(dir, { recursive: true, force: true }))
  const path = join(dir, 'events.journal')
  const journal = new EventJournal(path, { rotateBytes: 1_000 })
  const newId = createIdFactory()
  const ids = Array.from({ length: 20 }, () => newId())
  let commit: () => void = () => {}
  const committed = new Promise<void>((resolve) => (commit = resolve))
  for (const id of ids.slice(0, 10)) journal.append(record(id))
  journal.rotate(committed)
  for (const id of ids.slice(10)) journal.append(record(id))
  assert.ok(statSync(`${path}.1`).size > 0, 'writes went to the second file after the rotation')
  assert.deepEqual(
    EventJournal.read(path).map((r) => r.stored.envelope.event_id),
    ids,
  )

  commit()
  await committed
  await new Promise((resolve) => setImmediate(resolve))
  assert.equal(statSync(path).size, 0, 'the full file is emptied once its records are committed')
  assert.equal(EventJournal.read(path).length, 10)
  journal.clear()
  assert.equal(EventJournal.read(path).length, 0)
  journal.close()
})

test('with fsync each append reaches the disk before it returns, and reads back the same', (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'linkdesk-journal-'))
  t.after(() => rmSync(dir, { recursive: true, force: true }))
  const path = join(dir, 'events.journal')
  const journal = new EventJournal(path, { fsync: true })
  const newId = createIdFactory()
  const ids = Array.from({ length: 5 }, () => newId())
  for (const id of ids) journal.append(record(id))
  assert.deepEqual(
    EventJournal.read(path).map((r) => r.stored.envelope.event_id),
    ids,
  )
  journal.close()
})
