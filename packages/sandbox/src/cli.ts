import type { AddressInfo } from 'node:net'
import { join, resolve } from 'node:path'
import pino from 'pino'
import packageJson from '../package.json' with { type: 'json' }
import { createControlApp } from './control/control-app'
import { readCommandLine, UsageError, type CliSettings } from './cli-options'
import { createSandbox } from './index'

const HOST = '127.0.0.1'
/** Room for media sent as base64 through the control API. */
const CONTROL_BODY_LIMIT = 100 * 1024 * 1024

/** This process's settings; help and version are printed with exit code 0, a mistake with exit code 2. */
function settingsOrExit(): CliSettings {
  try {
    const invocation = readCommandLine(process.argv.slice(2), process.env, packageJson.version)
    if (invocation.kind === 'print') {
      process.stdout.write(invocation.text)
      process.exit(0)
    }
    return invocation.settings
  } catch (error) {
    if (!(error instanceof UsageError)) throw error
    process.stderr.write(`linkdesk sandbox: ${error.message}\n`)
    process.exit(2)
  }
}

/** `npm run sandbox` (see --help): the simulated network alone, with its control API, on loopback. */
async function main(): Promise<void> {
  const options = settingsOrExit()
  const logger = pino({ level: options.logLevel, base: undefined }, pino.destination({ fd: 2, sync: false }))
  // With a data dir the network outlives a restart (the same layout as Linkdesk's `--sandbox`).
  const stateDir = options.dataDir === undefined ? undefined : join(resolve(options.dataDir), 'sandbox')
  const { latency } = options
  const sandbox = await createSandbox({
    logger,
    host: HOST,
    stateDir,
    reset: options.reset,
    ...(latency && { timings: { latencyMs: latency.minMs, latencyJitterMs: latency.jitterMs } }),
  })
  const app = createControlApp(sandbox.control, { logger, bodyLimit: CONTROL_BODY_LIMIT })
  try {
    await app.listen({ host: HOST, port: options.port })
  } catch (error) {
    await sandbox.close()
    throw error
  }
  const { port } = app.server.address() as AddressInfo
  process.stdout.write(
    [
      `websocket: ${sandbox.endpoint.wsUrl}`,
      `root-key: ${sandbox.endpoint.rootPublicKey.toString('hex')}`,
      `media-ca: ${sandbox.endpoint.mediaCaPath}`,
      `control: http://${HOST}:${port}/sandbox`,
      '',
    ].join('\n'),
  )

  const stop = (signal: string): void => {
    logger.info({ signal }, 'sandbox shutting down')
    Promise.all([app.close(), sandbox.close()]).then(
      () => process.exit(0),
      (error: unknown) => {
        logger.error({ err: error }, 'sandbox shutdown failed')
        process.exit(1)
      },
    )
  }
  process.once('SIGINT', () => stop('SIGINT'))
  process.once('SIGTERM', () => stop('SIGTERM'))
}

main().catch((error: unknown) => {
  process.stderr.write(`linkdesk sandbox: could not start: ${(error as Error).message}\n`)
  process.exit(1)
})
