import assert from 'node:assert/strict'
import { test } from 'node:test'
import { setTimeout as sleep } from 'node:timers/promises'
import { CoalescedRunner } from './coalesced-runner'

test('requests during a run make exactly one more run; a failure is reported; stop waits for the run', async () => {
  let runs = 0
  const errors: unknown[] = []
  const runner = new CoalescedRunner(
    async () => {
      runs += 1
      await sleep(20)
      if (runs === 2) throw new Error('second run failed')
    },
    (error) => errors.push(error),
  )
  runner.run()
  runner.run()
  runner.run()
  runner.run()
  // The second run is the one that fails: once its failure is reported, nothing more is asked for.
  while (errors.length === 0) await sleep(5)
  assert.equal(runs, 2, 'one run, then one more for all the requests made during it')
  assert.equal(errors.length, 1)
  runner.run()
  const stopping = runner.stop()
  runner.run()
  await stopping
  assert.equal(runs, 3, 'the run under way finished; none after the stop')
})

test('flush resolves once a run begun after the call has ended', async () => {
  const seen: number[] = []
  let value = 0
  const runner = new CoalescedRunner(
    async () => {
      const read = value
      await sleep(10)
      seen.push(read)
    },
    () => undefined,
  )
  runner.run()
  value = 1
  await runner.flush()
  assert.deepEqual(seen, [0, 1], 'the run under way did not count: one more ran after the call')
  await runner.stop()
  await runner.flush()
})
