import { readFileSync, writeFileSync } from 'node:fs'
import { totalmem } from 'node:os'
import { fileURLToPath } from 'node:url'
import type { FigureRun } from './figure'

export const RESULTS_PATH = fileURLToPath(new URL('../results.md', import.meta.url))
/** The documents that show the run's summary between `<!-- bench:summary -->` markers. */
export const SUMMARY_PATHS = ['../../README.md', '../../docs/benchmarks.md'].map((path) =>
  fileURLToPath(new URL(path, import.meta.url)),
)

const HEADER = `# Linkdesk benchmarks: the app beside raw Baileys

Written by \`npm run bench\`: every section below comes from one run, whose time and load the summary states.
A figure alone (\`npm run bench:send\`, \`bench:send-profile\`, \`bench:receive\`, \`bench:receive-profile\`, \`bench:memory\`, \`bench:start\`,
\`bench:link\`, \`bench:event-log\`) is printed, not written here; \`BENCH_ONLY=send,receive npm run bench\`
rewrites this file with those figures alone.

Each figure runs both sides in one run, alternating which side goes first, against the same outside sandbox
process: \`packages/sandbox/src/cli.ts\`, as \`npm run sandbox -- --port 0\` runs it.

* **The app** runs as its own process: \`npm run serve -- --sandbox-url <control> --send-interval-ms 0\`.
  It is started through \`bench/harness/app-launcher.ts\`, which adds GC-and-report on SIGUSR2 and changes no
  product code.
* **Raw Baileys 7.0.0-rc14** runs in its own process, \`bench/raw/raw-worker.ts\`, with in-memory keys and the
  app's socket options.

Figures are the **median** (min–max) over the rounds. Only 127.0.0.1 is used.
`

/** One whole run of the bench. */
export interface BenchRun {
  startedAt: Date
  endedAt: Date
  loadBefore: number
  loadAfter: number
  figures: FigureRun[]
}

const minute = (date: Date) => date.toISOString().slice(0, 16).replace('T', ' ')

/** The summary table of a run: every target line of its figures, under the run's time and load. */
export function summaryMarkdown(run: BenchRun): string {
  const cell = (text: string) => text.replaceAll('|', '\\|')
  const rows = run.figures.flatMap((figure) => figure.targets)
  return [
    `**One run, ${minute(run.startedAt)}–${minute(run.endedAt).slice(11)} UTC** (${machine()}; 1-minute load ` +
      `${run.loadBefore.toFixed(2)} at the start, ${run.loadAfter.toFixed(2)} at the end; figures: ` +
      `${run.figures.map((figure) => figure.name).join(', ')}). Written by \`npm run bench\` with bench/results.md.`,
    '',
    '| figure | app | beside it, same run | target |',
    '|---|---|---|---|',
    ...rows.map((row) => `| ${[row.figure, row.app, row.beside, row.target].map(cell).join(' | ')} |`),
  ].join('\n')
}

/** Writes bench/results.md whole (the summary, then every figure's section) and the summary into SUMMARY_PATHS. */
export function writeRun(run: BenchRun): void {
  const summary = summaryMarkdown(run)
  const sections = run.figures.map((figure) => figure.section.trim())
  writeFileSync(
    RESULTS_PATH,
    [HEADER, '## Targets at a glance', '', summary, ...sections].join('\n\n') + '\n',
  )
  for (const path of SUMMARY_PATHS)
    writeFileSync(path, withBlock(readFileSync(path, 'utf8'), 'summary', summary))
}

/** `text` with the block between `<!-- bench:name -->` and `<!-- /bench:name -->` replaced by `markdown`. */
export function withBlock(text: string, name: string, markdown: string): string {
  const start = `<!-- bench:${name} -->`
  const end = `<!-- /bench:${name} -->`
  const from = text.indexOf(start)
  const to = text.indexOf(end)
  if (from < 0 || to < from) throw new Error(`no ${start} … ${end} block to replace`)
  return `${text.slice(0, from)}${start}\n${markdown.trim()}\n${text.slice(to)}`
}

const machine = () => `2 vCPUs, ${Math.round(totalmem() / 2 ** 30)} GiB, Node ${process.version}`

/** One line on when and where a figure was measured. */
export function machineLine(loadBefore: number, loadAfter: number): string {
  return (
    `Measured ${minute(new Date())} UTC on a shared VM: ${machine()}; ` +
    `1-min load ${loadBefore.toFixed(2)} before, ${loadAfter.toFixed(2)} after.`
  )
}
