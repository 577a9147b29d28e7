import { fileURLToPath } from 'node:url'
import { removeDataDirs } from './app'
import { loadAverage } from './proc'
import { machineLine, writeSection } from './results'
import { startSandbox, type OutsideSandbox } from './sandbox'

export interface FigureContext {
  sandbox: OutsideSandbox
  rounds: number
  /** A fresh sandbox phone number, distinct within the run. */
  phone(): string
}

/** What a figure answers: its markdown (title, table, notes). */
export type Figure = (context: FigureContext) => Promise<string>

let phones = 0

/** Runs a figure against its own outside sandbox, prints its section and writes it to bench/results.md. */
export async function runFigure(name: string, figure: Figure): Promise<string> {
  const rounds = Math.max(1, Number(process.env.BENCH_ROUNDS ?? 3))
  const loadBefore = loadAverage()
  const sandbox = await startSandbox()
  const run = String(process.pid % 1000).padStart(3, '0')
  try {
    const body = await figure({
      sandbox,
      rounds,
      phone: () => `1555${run}${String(++phones).padStart(4, '0')}`,
    })
    const section = `${body.trim()}\n\n${machineLine(loadBefore, loadAverage())}\n`
    process.stdout.write(`\n${section}\n`)
    if (!process.env.BENCH_NO_WRITE) writeSection(name, section)
    return section
  } finally {
    await sandbox.stop()
    removeDataDirs()
  }
}

/** Whether `moduleUrl` is the script node was started with. */
export function isEntry(moduleUrl: string): boolean {
  return process.argv[1] !== undefined && fileURLToPath(moduleUrl) === process.argv[1]
}

/** The entry of a one-figure script: run it, and exit non-zero on failure. */
export function runMain(name: string, figure: Figure): void {
  runFigure(name, figure).then(
    () => process.exit(0),
    (error: unknown) => {
      process.stderr.write(`bench ${name} failed: ${(error as Error).stack}\n`)
      process.exit(1)
    },
  )
}
