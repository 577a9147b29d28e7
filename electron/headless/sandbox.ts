import type { AddressInfo } from 'node:net'
import { join, resolve } from 'node:path'
import { ConfigError } from '../core/config'
import { createHttpApp } from '../core/api/http-app'
import { createLogger } from '../core/logger'
import { createSandbox, registerSandboxRoutes } from '../core/sandbox'
import { APP_VERSION } from '../core/version'
import { SANDBOX_COMMAND } from './cli-options'
import { settingsOrExit } from './command-line'

const HOST = '127.0.0.1'
/** Room for media sent as base64 through the control API. */
const CONTROL_BODY_LIMIT = 100 * 1024 * 1024

/** `npm run sandbox` (see --help): the simulated network alone, with its control API, on loopback. */
async function main(): Promise<void> {
  const options = settingsOrExit(SANDBOX_COMMAND, APP_VERSION, (settings) => {
    if (settings.reset && settings.dataDir === undefined)
      throw new ConfigError('--reset deletes the state kept in --data-dir: give --data-dir too.')
    return settings
  })
  const logger = createLogger(options.logLevel)
  // With a data dir the network outlives a restart (the same layout as `npm run serve -- --sandbox`).
  const stateDir = options.dataDir === undefined ? undefined : join(resolve(options.dataDir), 'sandbox')
  const sandbox = await createSandbox({ logger, host: HOST, stateDir, reset: options.reset })
  const app = createHttpApp({ logger, bodyLimit: CONTROL_BODY_LIMIT })
  await app.register(async (scoped) => registerSandboxRoutes(scoped, sandbox.control), { prefix: '/sandbox' })
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
