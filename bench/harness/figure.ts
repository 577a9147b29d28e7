import { fileURLToPath } from 'node:url'
import { removeDataDirs } from './app'
import { loadAverage } from './proc'
import { machineLine } from './results'
import { startSandbox, type OutsideSandbox } from './sandbox'

/** One line of the summary: a figure of the app, what it is compared with in the same run, and its target. */
export interface TargetRow {
  figure: string
  app: string
  beside: string
  /** The target and whether it was met, with the ratio: "≥ 0.8× reference: **missed** (0.32×)". */
  target: string
}

export interface FigureContext {
  sandbox: OutsideSandbox
  rounds: number
  /** A fresh sandbox phone number, distinct within the run. */
  phone(): string
  /** Adds a line to the run's summary (bench/results.md, docs/benchmarks.md and the README show the same). */
  target(row: TargetRow): void
}

/** What a figure answers: its markdown (title, table, notes). */
export type Figure = (context: FigureContext) => Promise<string>

/** A figure as measured: its section of bench/results.md and its lines of the summary. */
export interface FigureRun {
  name: string
  section: string
  targets: TargetRow[]
}

let phones = 0

/** Runs a figure against its own outside sandbox and prints its section. */
export async function runFigure(name: string, figure: Figure): Promise<FigureRun> {
  const rounds = Math.max(1, Number(process.env.BENCH_ROUNDS ?? 3))
  const loadBefore = loadAverage()
  // The bare network by default: the figures measure Linkdesk's own costs, not a simulated network's hops
  // (BENCH_SANDBOX_LATENCY, such as 20+10, measures with them).
  const sandbox = await startSandbox({ latency: process.env.BENCH_SANDBOX_LATENCY ?? '0' })
  const run = String(process.pid % 1000).padStart(3, '0')
  const targets: TargetRow[] = []
  try {
    const body = await figure({
      sandbox,
      rounds,
      phone: () => `1555${run}${String(++phones).padStart(4, '0')}`,
      target: (row) => targets.push(row),
    })
    const section = `${body.trim()}\n\n${machineLine(loadBefore, loadAverage())}\n`
    process.stdout.write(`\n${section}\n`)
    return { name, section, targets }
  } finally {
    await sandbox.stop()
    removeDataDirs()
  }
}

/** Whether `moduleUrl` is the script node was started with. */
export function isEntry(moduleUrl: string): boolean {
  return process.argv[1] !== undefined && fileURLToPath(moduleUrl) === process.argv[1]
}

/**
 * The entry of a one-figure script: run it and print it, and exit non-zero on failure. It writes no file:
 * bench/results.md and the summaries hold one whole run of `npm run bench`, never a figure of another day.
 */
export function runMain(name: string, figure: Figure): void {
  runFigure(name, figure).then(
    () => process.exit(0),
    (error: unknown) => {
      process.stderr.write(`bench ${name} failed: ${(error as Error).stack}\n`)
      process.exit(1)
    },
  )
}

/** "**met**" or "**missed**", for a target line. */
export const metOrMissed = (met: boolean): string => (met ? '**met**' : '**missed**')
