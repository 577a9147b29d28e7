import { parseArgs } from 'node:util'
import { ConfigError, type ConfigInput } from '../core/config'

/**
 * Reads `npm run serve -- [--port N] [--host H] [--data-dir DIR] [--sandbox | --sandbox-url URL]
 * [--send-interval-ms N] [--requests-per-minute N] [--connect-wait-ms N] [--log-level L]` and the env.
 */
export function serveOptions(argv: string[], env: NodeJS.ProcessEnv): ConfigInput {
  let values
  try {
    ;({ values } = parseArgs({
      args: argv,
      strict: true,
      options: {
        port: { type: 'string' },
        host: { type: 'string' },
        'data-dir': { type: 'string' },
        sandbox: { type: 'boolean' },
        'sandbox-url': { type: 'string' },
        'log-level': { type: 'string' },
        'send-interval-ms': { type: 'string' },
        'requests-per-minute': { type: 'string' },
        'connect-wait-ms': { type: 'string' },
      },
    }))
  } catch (error) {
    throw new ConfigError((error as Error).message)
  }
  const limits: ConfigInput['limits'] = {}
  if (values['send-interval-ms'] !== undefined) limits.sendIntervalMs = values['send-interval-ms']
  const perMinute = values['requests-per-minute'] ?? env.LINKDESK_REQUESTS_PER_MINUTE
  if (perMinute !== undefined) limits.requestsPerMinute = perMinute
  const connectWait = values['connect-wait-ms'] ?? env.LINKDESK_CONNECT_WAIT_MS
  return {
    port: values.port ?? env.LINKDESK_PORT,
    host: values.host ?? env.LINKDESK_HOST,
    dataDir: values['data-dir'] ?? env.LINKDESK_DATA_DIR,
    sandbox: values.sandbox,
    sandboxUrl: values['sandbox-url'],
    logLevel: values['log-level'] ?? env.LINKDESK_LOG_LEVEL,
    accessToken: env.LINKDESK_ACCESS_TOKEN || undefined,
    limits: Object.keys(limits).length > 0 ? limits : undefined,
    timings: connectWait !== undefined ? { connectionWaitMs: connectWait } : undefined,
  }
}
