import assert from 'node:assert/strict'
import { test } from 'node:test'

test('the bench harness starts the sandbox, the app and a raw process and produces a link row with N=1', async () => {
  process.env.BENCH_LINKS = '1'
  process.env.BENCH_ROUNDS = '1'
  process.env.BENCH_NO_WRITE = '1'
  const { runFigure } = await import('./harness/figure')
  const { linkFigure } = await import('./link')
  const section = await runFigure('link', linkFigure)
  assert.match(section, /\| app: create_instance[^\n]*\| \*\*\d+\.\d\*\* /)
  assert.match(section, /\| raw: makeWASocket[^\n]*\| \*\*\d+\.\d\*\* /)
})
