import { parseArgs } from 'node:util'
import { ConfigError, type ConfigInput } from '../core/config'

/** Reads `npm run serve -- [--port N] [--host H] [--data-dir DIR] [--sandbox | --sandbox-url URL]` and the env. */
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
      },
    }))
  } catch (error) {
    throw new ConfigError((error as Error).message)
  }
  return {
    port: values.port ?? env.LINKDESK_PORT,
    host: values.host ?? env.LINKDESK_HOST,
    dataDir: values['data-dir'] ?? env.LINKDESK_DATA_DIR,
    sandbox: values.sandbox,
    sandboxUrl: values['sandbox-url'],
    logLevel: values['log-level'] ?? env.LINKDESK_LOG_LEVEL,
    accessToken: env.LINKDESK_ACCESS_TOKEN || undefined,
    limits:
      values['send-interval-ms'] !== undefined ? { sendIntervalMs: values['send-interval-ms'] } : undefined,
  }
}
