// Every figure, one after another, each against its own outside sandbox: `npm run bench`. One run writes
// bench/results.md whole and the summary in the README and docs/benchmarks.md, so no figure of another day
// stands beside it.
// Knobs: BENCH_ROUNDS (3), BENCH_SENDS (1000), BENCH_MESSAGES (1000), BENCH_MEMORY_NS (0,1,10,50,100),
// BENCH_SETTLE_MS (10000), BENCH_START_N (100), BENCH_LINKS (5), BENCH_LOG_EVENTS (100000), BENCH_INBOX_CHATS (2000),
// BENCH_INBOX_MESSAGES (100000); BENCH_ONLY=send,link runs a subset (send-profile profiles both sides of a sequential
// send, receive-profile of an incoming burst); scale runs its short profile (BENCH_SCALE_PROFILE=long for the hour,
// BENCH_SCALE_ACCOUNTS, BENCH_SCALE_NODES).
import { runFigure, type Figure, type FigureRun } from './harness/figure'
import { loadAverage } from './harness/proc'
import { RESULTS_PATH, SUMMARY_PATHS, writeRun } from './harness/results'
import { eventLogFigure } from './event-log'
import { inboxFigure } from './inbox'
import { linkFigure } from './link'
import { memoryFigure } from './memory'
import { receiveFigure } from './receive'
import { receiveProfileFigure } from './receive-profile'
import { scaleFigure } from './scale'
import { sendFigure } from './send'
import { sendProfileFigure } from './send-profile'
import { startFigure } from './start'

const FIGURES: Array<[string, Figure]> = [
  ['send', sendFigure],
  ['send-profile', sendProfileFigure],
  ['receive', receiveFigure],
  ['receive-profile', receiveProfileFigure],
  ['link', linkFigure],
  ['start', startFigure],
  ['memory', memoryFigure],
  ['event-log', eventLogFigure],
  ['inbox', inboxFigure],
  ['scale', scaleFigure],
]

async function main(): Promise<void> {
  const only = process.env.BENCH_ONLY?.split(',')
  const startedAt = new Date()
  const loadBefore = loadAverage()
  const figures: FigureRun[] = []
  for (const [name, figure] of FIGURES) {
    if (only && !only.includes(name)) continue
    figures.push(await runFigure(name, figure))
  }
  writeRun({ startedAt, endedAt: new Date(), loadBefore, loadAfter: loadAverage(), figures })
  process.stdout.write(`\nWritten to ${[RESULTS_PATH, ...SUMMARY_PATHS].join(', ')}\n`)
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    process.stderr.write(`bench failed: ${(error as Error).stack}\n`)
    process.exit(1)
  },
)
