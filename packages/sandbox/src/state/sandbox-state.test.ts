import assert from 'node:assert/strict'
import { spawn } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, describe, test } from 'node:test'
import { fileURLToPath } from 'node:url'
import pino from 'pino'
import {
  defineTable,
  memoryState,
  openSandboxState,
  resetSandboxState,
  type SandboxState,
} from './sandbox-state'
import { StoredList } from './stored-list'

const dirs: string[] = []
const logger = pino({ level: 'silent' })

function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'linkdesk-sandbox-state-'))
  dirs.push(dir)
  return dir
}

after(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true })
})

/** A live value with its own plain form, as libsignal's session records have. */
class Counter {
  constructor(public count: number) {}
}
const COUNTERS = defineTable<Counter>({
  name: 'counters',
  encode: (counter) => ({ count: counter.count }),
  decode: (stored) => new Counter((stored as { count: number }).count),
})
const NOTES = defineTable<{ text: string; bytes: Buffer }>({ name: 'notes' })

describe('durable state', () => {
  test('reads see writes at once; a reopened state has every record, decoded, with prefixes in key order', async () => {
    const dir = tempDir()
    const state = openSandboxState(dir, logger)
    const notes = state.open(NOTES)
    const counters = state.open(COUNTERS)
    notes.put('a/2', { text: 'two', bytes: Buffer.from([2]) })
    notes.put('a/1', { text: 'one', bytes: Buffer.from([1]) })
    notes.put('ab/1', { text: 'other prefix', bytes: Buffer.alloc(0) })
    notes.put('b/1', { text: 'gone', bytes: Buffer.alloc(0) })
    notes.remove('b/1')
    counters.put('c', new Counter(7))
    assert.equal(notes.get('a/1')?.text, 'one', 'before the commit')
    assert.equal(notes.get('b/1'), undefined)
    assert.deepEqual(
      notes.entries('a/').map(([key]) => key),
      ['a/1', 'a/2'],
    )
    await state.close()

    const reopened = openSandboxState(dir, logger)
    const kept = reopened.open(NOTES)
    assert.deepEqual(
      kept.entries().map(([key]) => key),
      ['a/1', 'a/2', 'ab/1'],
    )
    assert.ok(Buffer.isBuffer(kept.get('a/2')?.bytes))
    assert.deepEqual(kept.get('a/2')?.bytes, Buffer.from([2]))
    const counter = reopened.open(COUNTERS).get('c')
    assert.ok(counter instanceof Counter)
    assert.equal(counter.count, 7)
    await reopened.close()

    resetSandboxState(dir)
    const fresh = openSandboxState(dir, logger)
    assert.deepEqual(fresh.open(NOTES).entries(), [], 'a reset state is empty')
    await fresh.close()
  })

  test('a stored list keeps its order and keys across a restart, and appends after its last item', async () => {
    const dir = tempDir()
    const check = async (use: (list: StoredList<string>) => void, state: SandboxState) => {
      use(new StoredList<string>(state, 'queue/1'))
      await state.close()
    }
    await check(
      (list) => {
        list.set('m1', 'first')
        list.push('second')
        list.set('m3', 'third')
        list.set('m1', 'first, changed')
        list.delete('m3')
      },
      openSandboxState(dir, logger),
    )
    await check(
      (list) => {
        assert.deepEqual([...list.values()], ['first, changed', 'second'])
        assert.equal(list.firstKey(), 'm1')
        assert.equal(list.has('#1'), true)
        assert.equal(list.push('third'), '#2', 'positions go on after the last item kept')
        assert.deepEqual([...list.values()], ['first, changed', 'second', 'third'])
        assert.equal(new StoredList(openSandboxState(dir, logger), 'queue').size, 0, 'another list')
      },
      openSandboxState(dir, logger),
    )
  })

  test('a process killed with SIGKILL while writing leaves a loadable state holding whole event turns', async () => {
    const dir = tempDir()
    const writer = fileURLToPath(new URL('../testing/state-writer.ts', import.meta.url))
    for (const killAfterMs of [30, 120, 300]) {
      await new Promise<void>((resolve, reject) => {
        const child = spawn(process.execPath, ['--import', 'tsx', writer, dir], {
          stdio: ['ignore', 'pipe', 'pipe'],
        })
        let stderr = ''
        child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()))
        child.stdout.once('data', () => setTimeout(() => child.kill('SIGKILL'), killAfterMs))
        child.once('exit', (_code, signal) =>
          signal === 'SIGKILL' ? resolve() : reject(new Error(`the writer exited by itself: ${stderr}`)),
        )
      })
      const state = openSandboxState(dir, logger)
      const left = state.open(defineTable<{ round: number }>({ name: 'left' })).entries()
      const right = state.open(defineTable<{ round: number }>({ name: 'right' })).entries()
      const rounds = [...new StoredList<number>(state, 'rounds').values()]
      assert.ok(rounds.length > 0, 'rounds were committed')
      assert.deepEqual(
        rounds,
        rounds.map((_, index) => index + 1),
        'the list holds every round up to the last committed one, in order',
      )
      const last = rounds.at(-1) ?? 0
      assert.deepEqual(
        left.map(([, record]) => record.round),
        right.map(([, record]) => record.round),
        'both tables hold the same rounds',
      )
      assert.equal(left.at(-1)?.[1].round, last, 'the tables end at the list’s last round')
      await state.close()
    }
  })
})

test('memory state keeps live values, the same objects, until it closes', async () => {
  const state = memoryState()
  const counters = state.open(COUNTERS)
  const counter = new Counter(1)
  counters.put('c', counter)
  assert.equal(state.open(COUNTERS).get('c'), counter)
  await state.close()
  assert.equal(counters.get('c'), undefined)
})
