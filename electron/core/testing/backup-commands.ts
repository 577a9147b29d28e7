import { runToEnd } from './run-to-end'

type Outcome = { code: number | null; stdout: string; stderr: string }

/** `npm run backup -- --data-dir … --to …`, run as a user would (its own process). */
export function runBackup(dataDir: string, to: string): Promise<Outcome> {
  return runToEnd(process.execPath, [
    ...['--import', 'tsx', 'electron/headless/backup.ts'],
    ...['--data-dir', dataDir, '--to', to],
  ])
}

/** `npm run restore -- --from … --data-dir …`, run as a user would (its own process). */
export function runRestore(from: string, dataDir: string): Promise<Outcome> {
  return runToEnd(process.execPath, [
    ...['--import', 'tsx', 'electron/headless/restore.ts'],
    ...['--from', from, '--data-dir', dataDir],
  ])
}
