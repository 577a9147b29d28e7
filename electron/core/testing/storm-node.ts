import { startNode, type Started } from '../../../bench/harness/processes'

/**
 * `serve` as the kill -9 tests run it: its own process under tsx, against an outside sandbox, pacing off, with
 * the test's token and store environment; answers once it printed its API address.
 */
export function startStormServe(
  dataDir: string,
  controlUrl: string,
  env: Record<string, string>,
): Promise<Started> {
  return startNode(
    'serve',
    [
      'electron/headless/serve.ts',
      ...['--sandbox-url', controlUrl, '--port', '0', '--data-dir', dataDir],
      ...['--send-interval-ms', '0', '--log-level', 'warn'],
    ],
    { waitFor: ['api'], env, timeoutMs: 60_000 },
  )
}

/** Kills the process with SIGKILL, as a crash would, and waits for it to be gone. */
export async function killNow(app: Started): Promise<void> {
  const exited = new Promise((resolve) => app.child.once('exit', resolve))
  app.child.kill('SIGKILL')
  await exited
}
