import type { AddressInfo } from 'node:net'
import { parseArgs } from 'node:util'
import { createHttpApp } from '../core/api/http-app'
import { createLogger, type LogLevel } from '../core/logger'
import { createSandbox, registerSandboxRoutes } from '../core/sandbox'

const HOST = '127.0.0.1'
const DEFAULT_PORT = 7000
/** Room for media sent as base64 through the control API. */
const CONTROL_BODY_LIMIT = 100 * 1024 * 1024

function readOptions(argv: string[]): { port: number; logLevel: LogLevel } {
  const { values } = parseArgs({
    args: argv,
    strict: true,
    options: { port: { type: 'string' }, 'log-level': { type: 'string' } },
  })
  const port = values.port === undefined ? DEFAULT_PORT : Number(values.port)
  if (!Number.isInteger(port) || port < 0 || port > 65_535)
    throw new Error('--port must be a port number (0-65535).')
  const levels: LogLevel[] = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']
  const logLevel = (values['log-level'] ?? 'info') as LogLevel
  if (!levels.includes(logLevel)) throw new Error(`--log-level must be one of ${levels.join(', ')}.`)
  return { port, logLevel }
}

/** `npm run sandbox -- [--port N]`: the simulated network alone, with its control API, on loopback. */
async function main(): Promise<void> {
  let options
  try {
    options = readOptions(process.argv.slice(2))
  } catch (error) {
    process.stderr.write(`linkdesk sandbox: ${(error as Error).message}\n`)
    process.exit(2)
  }
  const logger = createLogger(options.logLevel)
  const sandbox = await createSandbox({ logger, host: HOST })
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
