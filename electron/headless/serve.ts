import { fileURLToPath } from 'node:url'
import { APP_VERSION, createCore, logUnhandledRejections } from '../core'
import { type Config, parseConfig } from '../core/config'
import { SERVE_COMMAND } from './cli-options'
import { settingsOrExit } from './command-line'

const uiDir = fileURLToPath(new URL('../../renderer/dist', import.meta.url))

/** What the operator reads at start: where to reach it, which network it drives, where it keeps its data, how to get a token. */
function banner(config: Config, apiBase: string, loginUrl: string): string {
  const network =
    config.network.kind === 'whatsapp'
      ? 'WhatsApp (real accounts: link them by QR code)'
      : config.network.kind === 'sandbox'
        ? 'sandbox (simulated, in this process: no phone needed)'
        : `sandbox at ${config.network.controlUrl} (simulated: no phone needed)`
  const token = config.accessToken
    ? 'the value of LINKDESK_ACCESS_TOKEN; more: open ui-login, then Tokens → Create'
    : 'open ui-login, then Tokens → Create; or start with LINKDESK_ACCESS_TOKEN=<8 to 256 characters>'
  return [
    'Linkdesk is running.',
    `api: ${apiBase}`,
    `ui-login: ${loginUrl}`,
    `network: ${network}`,
    `data: ${config.dataDir}`,
    `token: ${token}`,
    '',
  ].join('\n')
}

async function main(): Promise<void> {
  const config = settingsOrExit(SERVE_COMMAND, APP_VERSION, (input) => parseConfig({ ...input, uiDir }))
  const core = await createCore(config)
  logUnhandledRejections(core.logger)
  process.stdout.write(banner(config, core.apiBase, core.createLoginUrl()))

  const stop = (signal: string) => {
    core.logger.info({ signal }, 'shutting down')
    core.close().then(
      () => process.exit(0),
      (error: unknown) => {
        core.logger.error({ err: error }, 'shutdown failed')
        process.exit(1)
      },
    )
  }
  process.once('SIGINT', () => stop('SIGINT'))
  process.once('SIGTERM', () => stop('SIGTERM'))
}

main().catch((error: unknown) => {
  process.stderr.write(`linkdesk: could not start: ${(error as Error).message}\n`)
  process.exit(1)
})
