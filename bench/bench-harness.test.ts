import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import { test } from 'node:test'
import { SUMMARY_PATHS, summaryMarkdown, withBlock } from './harness/results'

test('the bench harness starts the sandbox, the app and a raw process and produces a link row with N=1', async () => {
  process.env.BENCH_LINKS = '1'
  process.env.BENCH_ROUNDS = '1'
  const { runFigure } = await import('./harness/figure')
  const { linkFigure } = await import('./link')
  const run = await runFigure('link', linkFigure)
  assert.match(run.section, /\| app: create_instance[^\n]*\| \*\*\d+\.\d\*\* /)
  assert.match(run.section, /\| raw: makeWASocket[^\n]*\| \*\*\d+\.\d\*\* /)
  assert.equal(run.targets.length, 1)
  assert.match(run.targets[0]?.target ?? '', /^≤ raw \+ 100 ms: \*\*(met|missed)\*\*$/)

  // One run feeds every summary: its table replaces the block of each document that shows it.
  const at = new Date('2026-11-27T01:00:00Z')
  const summary = summaryMarkdown({
    startedAt: at,
    endedAt: new Date('2026-11-27T01:31:00Z'),
    loadBefore: 0.5,
    loadAfter: 1.25,
    figures: [run],
  })
  assert.match(
    summary,
    /^\*\*One run, 2026-11-27 01:00–01:31 UTC\*\* .*load 0\.50 at the start, 1\.25 at the end; figures: link\)/,
  )
  assert.match(
    summary,
    /\n\| link: create → QR → scan → connected \| \d+ ms \| raw \d+ ms \| ≤ raw \+ 100 ms: \*\*(met|missed)\*\* \|$/,
  )
  for (const path of SUMMARY_PATHS) {
    const replaced = withBlock(readFileSync(path, 'utf8'), 'summary', summary)
    assert.equal(replaced.split('<!-- bench:summary -->').length, 2, `${path} has one summary block`)
    assert.ok(replaced.includes(`<!-- bench:summary -->\n${summary}\n<!-- /bench:summary -->`), path)
  }
  assert.throws(() => withBlock('no block here', 'summary', summary), /no <!-- bench:summary -->/)
})
